/* What the per-op fuzz targets share: the input written to a file of this
 * process (the loaders read paths), a document with one rank file whose
 * "comms" lists communicator 0x...c0ffee of 4 ranks, and the checks of
 * what the loader kept. Single-threaded, as libFuzzer runs a target. */
#ifndef NCCLTAP_FUZZ_OPS_COMMON_H
#define NCCLTAP_FUZZ_OPS_COMMON_H

#include "load.h"
#include "input_limits.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_COMM 0x5ca1ab1e00c0ffeeull
#define FUZZ_NRANKS 4

struct fuzz_ops {
    struct report r;
    struct rank_file f;
    struct comm_entry comm;
    char path[64];
};

static inline void fuzz_ops_begin(struct fuzz_ops *run, const uint8_t *data, size_t size,
                                  const char *suffix)
{
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "/tmp/nccltap-fuzz-%d.%s", (int)getpid(), suffix);
    FILE *out = fopen(run->path, "wb");
    if (!out || (size && fwrite(data, size, 1, out) != 1) || fclose(out) != 0)
        abort();
    run->comm = (struct comm_entry){ .id = "5ca1ab1e00c0ffee", .rank = 0, .nranks = FUZZ_NRANKS };
    run->f.comms = &run->comm;
    run->f.ncomms = 1;
    run->f.path = run->path;
}

static inline void fuzz_ops_end(struct fuzz_ops *run)
{
    const struct rank_file *f = &run->f;
    for (size_t i = 0; i < f->nevents; i++) {
        const struct op_event *e = &f->events[i];
        int nranks = e->comm == FUZZ_COMM ? FUZZ_NRANKS : REPORT_MAX_NRANKS;
        if (e->rank < 0 || e->rank >= nranks || e->peer < -1 || e->peer >= nranks ||
            e->seq >= REPORT_MAX_COUNT || op_replay(e) >= REPORT_MAX_COUNT || op_group(e) >= REPORT_MAX_COUNT || e->bytes > REPORT_MAX_OP_BYTES ||
            e->end_ns < e->start_ns || e->end_ns >= REPORT_MAX_COUNT || !e->group_ops)
            abort();
        if (i && e->comm == e[-1].comm && e->rank == e[-1].rank &&
            (e->seq < e[-1].seq || (e->seq == e[-1].seq && op_replay(e) < op_replay(&e[-1]))))
            abort();  /* sorted by (comm, rank, seq, replay) */
    }
    unlink(run->path);
    free(run->f.events);
    free(run->f.tags);
    rank_file_streams_free(&run->f);
    report_model_free(&run->r);
}

#endif
