/* The per-op file of one process (preload/writers/ops_file_format.h: a
 * ring of fixed-size binary records, version 1, 3, 4 or 5) into the document's
 * op events, executions of captured calls (replays) included, oldest
 * first; what the ring overwrote or could not write is counted in
 * f->events_dropped. */
#include "load.h"
#include "input_file.h"
#include "input_limits.h"
#include "record_check.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writers/ops_file_format.h"

#define CHUNK 4096  /* records read at a time */

/* The header's names as interned indices: ops first, then datatypes. */
static bool read_names(struct report *r, const char *h, const struct tap_ops_header *hd,
                       uint8_t *ops, uint8_t *dtypes)
{
    const char *p = hd->names, *end = h + TAP_OPS_HEADER_BYTES;
    if (hd->nops > 256 || hd->ndtypes > 256)
        return false;
    for (uint32_t i = 0; i < hd->nops + hd->ndtypes; i++) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul)
            return false;
        uint8_t k = report_name_index(r, p);
        if (i < hd->nops)
            ops[i] = k;
        else
            dtypes[i - hd->nops] = k;
        p = nul + 1;
    }
    return true;
}

static const char *check_header(const struct tap_ops_header *hd)
{
    if (memcmp(hd->magic, TAP_OPS_MAGIC, sizeof hd->magic) != 0)
        return "not a per-op file of nccltap";
    if (hd->byte_order != TAP_OPS_BYTE_ORDER)
        return "written on a machine of another byte order";
    /* Version 1's records lack `replay` (ops_file_format.h): read as 0. */
    /* Version 3's records are 4's, with `redop` reserved (read as not
     * recorded); 4's are 5's without `user_tag` (read as 0, no tag). */
    if (!((hd->version == TAP_OPS_VERSION && hd->record_bytes == sizeof(struct tap_ops_record)) ||
          ((hd->version == 3 || hd->version == 4) && hd->record_bytes == TAP_OPS_V4_RECORD_BYTES) ||
          (hd->version == 1 && hd->record_bytes == TAP_OPS_V1_RECORD_BYTES)))
        return "another version of the format";
    if (!hd->capacity)
        return "a ring of no records";
    /* The shim's ring is at most 1 TiB (NCCLTAP_OPS_MAX_MB); counts past
     * it would overflow the offsets and sums below. */
    if (hd->capacity > (1ull << 40) / hd->record_bytes ||
        hd->written >= REPORT_MAX_COUNT || hd->lost >= REPORT_MAX_COUNT)
        return "its header's counts are damaged";
    return NULL;
}

bool report_load_ops_file(struct report *r, struct rank_file *f, const char *path)
{
    char open_why[128];
    int fd = input_open(path, REPORT_MAX_OPS_FILE_BYTES, open_why, sizeof open_why);
    if (fd < 0) {
        if (errno == ENOENT)
            return false;
        msg("skipping %s: %s", path, open_why);
        return true;
    }
    FILE *in = fdopen(fd, "rb");
    if (!in) {
        close(fd);
        return false;
    }
    char h[TAP_OPS_HEADER_BYTES];
    const struct tap_ops_header *hd = (const struct tap_ops_header *)(const void *)h;
    uint8_t ops[256], dtypes[256];
    const char *why = fread(h, sizeof h, 1, in) == 1 ? check_header(hd) : "shorter than its header";
    if (!why && !read_names(r, h, hd, ops, dtypes))
        why = "its name table is damaged";
    if (why) {
        msg("%s: %s; its per-op records are not read", path, why);
        fclose(in);
        return true;
    }
    struct stat st;
    size_t size = hd->record_bytes;  /* this version's record */
    uint64_t slots = hd->capacity;
    if (fstat(fileno(in), &st) == 0 && st.st_size >= TAP_OPS_HEADER_BYTES) {
        uint64_t present = ((uint64_t)st.st_size - TAP_OPS_HEADER_BYTES) / size;
        slots = present < slots ? present : slots;
    }
    /* The records present, oldest first: from slot written % capacity when
     * the ring has wrapped. */
    uint64_t n = hd->written < slots ? hd->written : slots;
    uint64_t first = hd->written > hd->capacity ? hd->written % hd->capacity : 0;
    f->events_dropped += hd->written - n + hd->lost;
    f->events = xrealloc(f->events, (f->nevents + n + 1) * sizeof *f->events);
    char *buf = xmalloc(CHUNK * size);
    uint64_t unknown_start = 0, grouped_replays = 0;
    for (uint64_t done = 0; done < n;) {
        uint64_t slot = (first + done) % hd->capacity;
        uint64_t want = n - done < CHUNK ? n - done : CHUNK;
        if (want > hd->capacity - slot)
            want = hd->capacity - slot;
        if (fseeko(in, (off_t)(TAP_OPS_HEADER_BYTES + slot * size), SEEK_SET) != 0 ||
            fread(buf, size, want, in) != want) {
            msg("%s: cannot read its records (%s); %llu of them are missing", path,
                ferror(in) ? strerror(errno) : "the file is shorter than its header says",
                (unsigned long long)(n - done));
            f->events_dropped += n - done;
            break;
        }
        for (uint64_t i = 0; i < want; i++) {
            struct tap_ops_record full = {0}, *rec = &full;
            memcpy(rec, buf + i * size, size);
            /* A start the shim could not place on the host clock (its GPU
             * clock was never calibrated): nothing to compare across ranks. */
            if (!rec->start_ns || rec->end_ns < rec->start_ns) {
                unknown_start++;
                continue;
            }
            bool stamped = rec->flags & TAP_OPS_STAMPED;
            f->events[f->nevents++] = (struct op_event){
                .comm = rec->comm, .seq = rec->seq, .bytes = rec->bytes,
                .stream = rank_file_stream(f, rec->stream), .enqueue_ns = rec->enqueue_ns, .start_ns = rec->start_ns,
                .end_ns = rec->end_ns, .rank = rec->rank, .peer = rec->peer, .tid = rec->tid,
                .group_ops = rec->group_ops ? rec->group_ops : 1,
                .op = rec->op < hd->nops ? ops[rec->op] : report_name_index(r, "unknown"),
                .dtype = rec->dtype < hd->ndtypes ? dtypes[rec->dtype] : report_name_index(r, "unknown"),
                .flags = (stamped ? OP_STAMPED : 0) |
                         (stamped && (rec->flags & TAP_OPS_START_AT_CALL) ? OP_START_AT_CALL : 0),
                .start_span_us = stamped ? op_span_us(rec->start_span_ns) : 0,
                .end_span_us = stamped ? op_span_us(rec->end_span_ns) : 0,
                .redop = hd->version >= 4 ? op_redop_of(rec->redop) : OP_REDOP_UNKNOWN,
            };
            if (!op_set_group_replay(&f->events[f->nevents - 1], rec->group, rec->replay)) {
                f->nevents--;
                grouped_replays++;
                continue;
            }
            rank_file_add_tag(f, rec->comm, rec->rank, rec->seq, rec->user_tag);
        }
        done += want;
    }
    report_rejected(r, path, grouped_replays, "per-op record",
                    "a grouped execution of a captured call, or an id past 2^62");
    if (unknown_start)
        msg("%s: %llu records without a GPU start time are left out of the cross-rank analysis",
            path, (unsigned long long)unknown_start);
    free(buf);
    fclose(in);
    report_check_events(r, f, path);
    report_sort_events(f);
    return true;
}
