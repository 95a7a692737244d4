#include "record_check.h"
#include "input_limits.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *event_invalid(const struct op_event *e, int nranks)
{
    if (e->rank < 0 || e->rank >= nranks)
        return "a rank outside its communicator";
    if (e->peer < -1 || e->peer >= nranks)
        return "a peer outside its communicator";
    if (e->seq >= REPORT_MAX_COUNT)
        return "a seq past 2^62";
    if (e->bytes > REPORT_MAX_OP_BYTES)
        return "a size past 256 TiB";
    if (e->enqueue_ns >= REPORT_MAX_COUNT || e->start_ns >= REPORT_MAX_COUNT ||
        e->end_ns >= REPORT_MAX_COUNT)
        return "a time past 2^62 ns";
    if (e->end_ns < e->start_ns)
        return "an end before its start";
    if (e->tid >= REPORT_MAX_TID)
        return "a thread id past Linux's 2^22";
    return NULL;
}

void report_rejected(struct report *r, const char *path, uint64_t n, const char *what, const char *why)
{
    if (!n)
        return;
    r->records_rejected += n;
    /* "entry" -> "entries", "per-op record" -> "per-op records" */
    size_t len = strlen(what);
    bool y = len > 0 && what[len - 1] == 'y';
    msg("%s: %llu %.*s%s out of range left out (the first: %s)", path, (unsigned long long)n,
        (int)(n != 1 && y ? len - 1 : len), what, n == 1 ? "" : y ? "ies" : "s", why);
}

void report_check_events(struct report *r, struct rank_file *f, const char *path)
{
    size_t nsizes;
    struct comm_size *sizes = comm_sizes_of(f, 1, &nsizes);
    const char *first = NULL;
    size_t kept = 0, rejected = 0;
    for (size_t i = 0; i < f->nevents; i++) {
        const struct op_event *e = &f->events[i];
        int nranks = comm_size_find(sizes, nsizes, e->comm, REPORT_MAX_NRANKS);
        /* The "(overflow)" communicator (comm_entry_invalid): the ops of
         * many communicators, with no rank to match them across ranks by.
         * Their calls are in its rows; their records are left out of the
         * analyses, not rejected. */
        if (nranks == COMM_OVERFLOW_NRANKS)
            continue;
        const char *why = event_invalid(e, nranks);
        if (why) {
            first = first ? first : why;
            rejected++;
            continue;
        }
        f->events[kept++] = *e;
    }
    report_rejected(r, path, rejected, "per-op record", first);
    f->nevents = kept;
    free(sizes);
}

const char *hang_comm_invalid(const struct hang_comm *c)
{
    if (c->nranks < 1 || c->nranks > REPORT_MAX_NRANKS)
        return "a communicator size outside 1..2^20";
    if (c->rank < 0 || c->rank >= c->nranks)
        return "a rank outside its communicator";
    if (c->issued >= REPORT_MAX_COUNT || c->seq >= REPORT_MAX_COUNT || c->last_done < -1 ||
        c->last_done >= (int64_t)REPORT_MAX_COUNT)
        return "a seq past 2^62";
    if (c->bytes > REPORT_MAX_OP_BYTES)
        return "a size past 256 TiB";
    for (size_t i = 0; i < c->nbetween; i++) {
        if (c->between[i].seq >= REPORT_MAX_COUNT)
            return "a seq past 2^62";
        if (c->between[i].bytes > REPORT_MAX_OP_BYTES)
            return "a size past 256 TiB";
    }
    return NULL;
}

bool comm_entry_is_overflow(const struct comm_entry *c)
{
    return c->rank == -1 && c->nranks == COMM_OVERFLOW_NRANKS && strcmp(c->origin, "overflow") == 0;
}

const char *comm_entry_invalid(const struct comm_entry *c)
{
    if (comm_entry_is_overflow(c))
        return NULL;
    if (c->nranks < 1 || c->nranks > REPORT_MAX_NRANKS)
        return "a communicator size outside 1..2^20";
    if (c->rank < 0 || c->rank >= c->nranks)
        return "a rank outside its communicator";
    return NULL;
}
