#include "writers/hang_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "state/callsite.h"
#include "state/comm_registry.h"
#include "base/config.h"
#include "base/json_writer.h"
#include "base/log.h"
#include "nccl/nccl_ops.h"
#include "base/out_file.h"
#include "writers/output.h"
#include "base/process.h"

static atomic_flag error_said = ATOMIC_FLAG_INIT;

/* One op between marks, the n-th of its list. */
static void write_call(FILE *f, const struct tap_hang_call *b, unsigned n)
{
    char dtype[32];
    fprintf(f, "%s{\"seq\": %llu, \"op\": \"%s\", \"bytes\": %llu, \"dtype\": \"%s\", \"redop\": %d, "
            "\"root\": %d}", n ? ", " : "", (unsigned long long)b->seq, tap_op_name((enum tap_op)b->op),
            (unsigned long long)b->bytes, tap_dtype_name(b->dtype, dtype, sizeof dtype), b->redop, b->peer);
}

static void write_comm(FILE *f, const struct tap_hang_comm *c)
{
    fprintf(f, "{\"comm\": \"%016llx\", \"rank\": %d, \"nranks\": %d, \"issued\": %llu, \"last_done\": ",
            (unsigned long long)c->comm->id, c->comm->rank, c->comm->nranks,
            (unsigned long long)c->issued);
    if (c->done_seq)
        fprintf(f, "%llu", (unsigned long long)(c->done_seq - 1));
    else
        fputs("null", f);
    if (c->pending) {
        /* Not timed: whether its GPU started it is not known (null). */
        fprintf(f, ", \"pending\": {\"seq\": %llu, \"op\": \"%s\", \"bytes\": %llu, \"timed\": %s, "
                "\"started\": %s, \"pending_s\": %.3f, ", (unsigned long long)c->seq,
                tap_op_name((enum tap_op)c->op), (unsigned long long)c->bytes, c->timed ? "true" : "false",
                !c->timed ? "null" : c->started ? "true" : "false", (double)c->age_ns / 1e9);
        /* What it was called with: the report compares the ranks' calls
         * (a mismatch, not a missing rank). */
        char dtype[32];
        fprintf(f, "\"dtype\": \"%s\", \"redop\": %d, \"root\": %d, \"site\": ",
                tap_dtype_name(c->dtype, dtype, sizeof dtype), c->redop, c->peer);
        /* The id of the rank file's "callsites" entry, which the report symbolizes. */
        if (c->site)
            fprintf(f, "%u}", (unsigned)c->site);
        else
            fputs("null}", f);
    } else
        fputs(", \"pending\": null", f);
    /* The ops of a burst between marks still waiting, oldest first: what
     * was called at each seq. */
    fputs(", \"between\": [", f);
    unsigned n = 0;
    for (unsigned i = 0; i < c->noldest; i++)
        write_call(f, &c->oldest[i], n++);
    for (unsigned i = 0; i < c->nnewest; i++)  /* those not already among the oldest */
        if (!c->noldest || c->newest[i].seq > c->oldest[c->noldest - 1].seq)
            write_call(f, &c->newest[i], n++);
    fputs("]}", f);
}

static void write_body(FILE *f, const struct tap_hang *h)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fputs("{\n  \"format\": \"nccltap-hang/1\",\n  \"host\": ", f);
    json_string(f, tap_process.host);
    fprintf(f, ",\n  \"pid\": %d,\n  \"run\": ", tap_process.pid);
    json_string(f, tap_config.run_id);
    fprintf(f, ",\n  \"time_unix_s\": %lld,\n  \"timeout_s\": %u,\n  \"reports\": %u,\n  \"stuck\": ",
            (long long)now.tv_sec, tap_config.hang_timeout_s, h->reports);
    write_comm(f, &h->comms[h->stuck]);
    fputs(",\n  \"comms\": [", f);
    for (unsigned i = 0; i < h->ncomms; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        write_comm(f, &h->comms[i]);
    }
    fputs("\n  ]\n}\n", f);
}

/* " from libapp.so+0x1a2b (train_step)": where the stuck op was called,
 * as well as the loader can tell without debug information; "" without a
 * site. */
static void where_called(const struct tap_hang_comm *s, char *buf, size_t len)
{
    buf[0] = 0;
    Dl_info info;
    uintptr_t ra = s->site ? tap_site_frames(s->site)[0] : 0;
    /* ra - 1: inside the call, should it be a function's last instruction. */
    if (!ra || !dladdr((void *)(ra - 1), &info) || !info.dli_fname)
        return;
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(buf, len, " from %s+0x%llx%s%s%s", base ? base + 1 : info.dli_fname,
             (unsigned long long)(ra - (uintptr_t)info.dli_fbase), info.dli_sname ? " (" : "",
             info.dli_sname ? info.dli_sname : "", info.dli_sname ? ")" : "");
}

/* One short line: the stuck op (communicator, op, seq, how long), where
 * it was called, and the file that has the rest (every communicator, the
 * GPU's start, the last op completed). */
static void say(const struct tap_hang *h, const char *name, bool written)
{
    const struct tap_hang_comm *s = &h->comms[h->stuck];
    char from[300];
    where_called(s, from, sizeof from);
    tap_log("hang: rank %d comm %016llx: %s seq %llu%s pending for %.1f s%s; %s%s%s%s",
            s->comm->rank, (unsigned long long)s->comm->id, tap_op_name((enum tap_op)s->op),
            (unsigned long long)s->seq, s->timed ? "" : " (not timed)", (double)s->age_ns / 1e9, from,
            written ? "see " : "no hang file written", written ? tap_config.dir : "", written ? "/" : "",
            written ? name : "");
}

void tap_hang_file_write(const struct tap_hang *h)
{
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".hang.json");
    int dir = tap_output_dir();
    bool written = false;
    struct tap_out_file out;
    FILE *f = dir < 0 ? NULL : tap_out_file_begin(&out, dir, name, TAP_OUT_FILE_MODE);
    if (f) {
        write_body(f, h);
        written = tap_out_file_commit(&out) == 0;
    }
    if (dir >= 0 && !written)
        TAP_LOG_ONCE(error_said, "cannot write %s/%s (%s)", tap_config.dir, name, strerror(errno));
    if (h->say)
        say(h, name, written);
}
