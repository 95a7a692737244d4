#include "record_check.h"
#include "input_limits.h"
#include "util.h"

#include <stdlib.h>

/* The sizes of the communicators a file lists, by id, for bsearch. */
struct comm_size {
    uint64_t id;
    int nranks;
};

static int cmp_size(const void *a, const void *b)
{
    const struct comm_size *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static struct comm_size *sizes_of(const struct rank_file *f)
{
    struct comm_size *s = xcalloc(f->ncomms + 1, sizeof *s);
    for (size_t i = 0; i < f->ncomms; i++)
        s[i] = (struct comm_size){ strtoull(f->comms[i].id, NULL, 16), f->comms[i].nranks };
    qsort(s, f->ncomms, sizeof *s, cmp_size);
    return s;
}

static int nranks_of(const struct comm_size *s, size_t n, uint64_t comm)
{
    struct comm_size key = { comm, 0 };
    const struct comm_size *c = bsearch(&key, s, n, sizeof *s, cmp_size);
    return c ? c->nranks : REPORT_MAX_NRANKS;
}

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
    return NULL;
}

void report_rejected(struct report *r, const char *path, uint64_t n, const char *what, const char *why)
{
    if (!n)
        return;
    r->records_rejected += n;
    msg("%s: %llu %s%s out of range left out (the first: %s)", path, (unsigned long long)n, what,
        n == 1 ? "" : "s", why);
}

void report_check_events(struct report *r, struct rank_file *f, const char *path)
{
    struct comm_size *sizes = sizes_of(f);
    const char *first = NULL;
    size_t kept = 0;
    for (size_t i = 0; i < f->nevents; i++) {
        const struct op_event *e = &f->events[i];
        const char *why = event_invalid(e, nranks_of(sizes, f->ncomms, e->comm));
        if (why) {
            first = first ? first : why;
            continue;
        }
        f->events[kept++] = *e;
    }
    report_rejected(r, path, f->nevents - kept, "per-op record", first);
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
    return NULL;
}

const char *comm_entry_invalid(const struct comm_entry *c)
{
    if (c->nranks < 1 || c->nranks > REPORT_MAX_NRANKS)
        return "a communicator size outside 1..2^20";
    if (c->rank < 0 || c->rank >= c->nranks)
        return "a rank outside its communicator";
    return NULL;
}
