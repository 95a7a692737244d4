/* Cross-rank matching: collectives by (comm, seq, replay: a launch of a
 * CUDA graph is one instance of each captured call on every rank), sends
 * with receives by
 * (comm, src, dst, order), and each process's clock aligned with the
 * reference process's from the ends of collectives. */
#include "crossrank.h"
#include "nccl/nccl_ops.h"
#include "slow_links.h"
#include "slow_transfers.h"
#include "stragglers.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Collectives whose ranks all finish at nearly the same instant: the last
 * step of each is an exchange among all of them. Rooted ones (Broadcast,
 * Reduce, Gather, Scatter) may end on the root well before the others. */
static bool ends_together(const char *name)
{
    int op = tap_op_from_name(name);
    return op == TAP_OP_ALLREDUCE || op == TAP_OP_ALLGATHER || op == TAP_OP_REDUCESCATTER ||
           op == TAP_OP_ALLTOALL;
}

/* ---- collectives: a k-way merge of the (file, comm, rank) runs by seq ---- */

/* The events of one file for one (comm, rank): sorted by seq. */
struct run {
    uint64_t comm;
    uint32_t file;
    size_t at, end;
};

static int cmp_run(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

/* Moves a run past its send and receive records. */
static void skip_p2p(const struct report *r, struct run *u)
{
    const struct rank_file *f = &r->files[u->file];
    while (u->at < u->end && xr_is_p2p(report_name(r, f->events[u->at].op)))
        u->at++;
}

/* Whether run u's current (seq, replay) comes before v's. */
static bool run_before(const struct report *r, const struct run *u, const struct run *v)
{
    const struct op_event *a = &r->files[u->file].events[u->at], *b = &r->files[v->file].events[v->at];
    return a->seq < b->seq || (a->seq == b->seq && op_replay(a) < op_replay(b));
}

static bool run_at(const struct report *r, const struct run *u, uint64_t seq, uint64_t replay)
{
    const struct op_event *a = &r->files[u->file].events[u->at];
    return a->seq == seq && op_replay(a) == replay;
}

/* A binary min-heap of runs, keyed by their current (seq, replay). */
static void sift_down(const struct report *r, struct run **h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, a = 2 * i + 1, b = a + 1;
        if (a < n && run_before(r, h[a], h[m]))
            m = a;
        if (b < n && run_before(r, h[b], h[m]))
            m = b;
        if (m == i)
            return;
        struct run *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static struct run *find_runs(const struct report *r, size_t *n)
{
    size_t cap = 64;
    struct run *runs = xmalloc(cap * sizeof *runs);
    *n = 0;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        for (size_t j = 0; j < f->nevents;) {
            size_t k = j + 1;
            while (k < f->nevents && f->events[k].comm == f->events[j].comm &&
                   f->events[k].rank == f->events[j].rank)
                k++;
            if (*n == cap)
                runs = xrealloc(runs, (cap *= 2) * sizeof *runs);
            runs[(*n)++] = (struct run){ f->events[j].comm, i, j, k };
            j = k;
        }
    }
    qsort(runs, *n, sizeof *runs, cmp_run);
    return runs;
}

static const struct report *sort_report;  /* for the member comparator */

static int cmp_member_rank(const void *a, const void *b)
{
    int x = xr_event(sort_report, *(const struct xr_member *)a)->rank;
    int y = xr_event(sort_report, *(const struct xr_member *)b)->rank;
    return (x > y) - (x < y);
}

static void add_member(struct crossrank *x, size_t *cap, struct xr_member m)
{
    if (x->nmembers == *cap)
        x->members = xrealloc(x->members, (*cap = *cap ? 2 * *cap : 1024) * sizeof *x->members);
    x->members[x->nmembers++] = m;
}

static void add_instance(struct crossrank *x, size_t *cap, const struct xr_instance *in)
{
    if (x->ninstances == *cap)
        x->instances = xrealloc(x->instances, (*cap = *cap ? 2 * *cap : 256) * sizeof *x->instances);
    x->instances[x->ninstances++] = *in;
}

static void match_collectives(const struct report *r, struct crossrank *x)
{
    size_t nsizes, nruns;
    struct comm_size *sizes = comm_sizes_of(r->files, r->nfiles, &nsizes);
    struct run *runs = find_runs(r, &nruns);
    size_t total = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        total += r->files[i].nevents;
    size_t mcap = total, icap = 0;
    x->members = xmalloc((mcap ? mcap : 1) * sizeof *x->members);
    struct run **heap = xmalloc((nruns ? nruns : 1) * sizeof *heap);
    sort_report = r;
    for (size_t c = 0; c < nruns;) {
        size_t d = c;
        size_t n = 0;
        for (; d < nruns && runs[d].comm == runs[c].comm; d++) {
            skip_p2p(r, &runs[d]);
            if (runs[d].at < runs[d].end)
                heap[n++] = &runs[d];
        }
        for (size_t i = n; i-- > 0;)
            sift_down(r, heap, n, i);
        int nranks = comm_size_find(sizes, nsizes, runs[c].comm, 0);
        while (n) {
            const struct op_event *at = &r->files[heap[0]->file].events[heap[0]->at];
            uint64_t seq = at->seq, replay = op_replay(at);
            struct xr_instance in = { .comm = runs[c].comm, .seq = seq, .replay = replay, .nranks = nranks,
                                      .first = x->nmembers };
            while (n && run_at(r, heap[0], seq, replay)) {
                struct run *u = heap[0];
                add_member(x, &mcap, (struct xr_member){ u->file, (uint32_t)u->at });
                u->at++;
                skip_p2p(r, u);
                if (u->at == u->end)
                    heap[0] = heap[--n];
                sift_down(r, heap, n, 0);
            }
            in.n = x->nmembers - in.first;
            qsort(x->members + in.first, in.n, sizeof *x->members, cmp_member_rank);
            const struct op_event *e = xr_event(r, x->members[in.first]);
            in.op = e->op;
            in.bytes = e->bytes;
            for (size_t k = 0; k < in.n; k++)
                if (xr_event(r, x->members[in.first + k])->group_ops > 1)
                    in.grouped = true;
            if (in.nranks && in.n < (size_t)in.nranks)
                x->incomplete++;
            add_instance(x, &icap, &in);
        }
        c = d;
    }
    free(heap);
    free(runs);
    free(sizes);
}

/* ---- point to point: the k-th send from src to dst meets the k-th receive ---- */

struct p2p_ref {
    uint64_t comm, seq, replay;
    int src, dst;
    struct xr_member m;
};

static int cmp_p2p(const void *a, const void *b)
{
    const struct p2p_ref *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->replay > y->replay) - (x->replay < y->replay);
}

static bool same_pair(const struct p2p_ref *a, const struct p2p_ref *b)
{
    return a->comm == b->comm && a->src == b->src && a->dst == b->dst;
}

static void match_p2p(const struct report *r, struct crossrank *x)
{
    size_t ns = 0, nr = 0, cap_s = 0, cap_r = 0;
    struct p2p_ref *sends = NULL, *recvs = NULL;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        for (uint32_t j = 0; j < f->nevents; j++) {
            const struct op_event *e = &f->events[j];
            int op = tap_op_from_name(report_name(r, e->op));
            bool send = op == TAP_OP_SEND;
            if (!send && op != TAP_OP_RECV)
                continue;
            struct p2p_ref ref = { e->comm, e->seq, op_replay(e), send ? e->rank : e->peer,
                                   send ? e->peer : e->rank, { i, j } };
            struct p2p_ref **v = send ? &sends : &recvs;
            size_t *n = send ? &ns : &nr, *cap = send ? &cap_s : &cap_r;
            if (*n == *cap)
                *v = xrealloc(*v, (*cap = *cap ? 2 * *cap : 256) * sizeof **v);
            (*v)[(*n)++] = ref;
        }
    }
    if (ns)
        qsort(sends, ns, sizeof *sends, cmp_p2p);
    if (nr)
        qsort(recvs, nr, sizeof *recvs, cmp_p2p);
    x->pairs = xmalloc((ns < nr ? ns : nr) * sizeof *x->pairs + 1);
    size_t i = 0, j = 0;
    while (i < ns && j < nr) {
        int c = cmp_p2p(&sends[i], &recvs[j]);
        bool pair = same_pair(&sends[i], &recvs[j]);
        if (!pair) {
            /* The pair one side has and the other lacks: all unmatched. */
            if (c < 0)
                i++;
            else
                j++;
            x->unmatched++;
            continue;
        }
        /* The same pair on both sides: match in order, by position. */
        size_t i2 = i, j2 = j;
        while (i2 < ns && same_pair(&sends[i2], &sends[i]))
            i2++;
        while (j2 < nr && same_pair(&recvs[j2], &recvs[j]))
            j2++;
        size_t k = 0;
        for (; i + k < i2 && j + k < j2; k++) {
            struct xr_pair p = { .comm = sends[i].comm, .order = k, .src = sends[i].src,
                                 .dst = sends[i].dst, .send = sends[i + k].m, .recv = recvs[j + k].m };
            p.bytes = xr_event(r, p.send)->bytes;
            x->pairs[x->npairs++] = p;
        }
        x->unmatched += (i2 - i - k) + (j2 - j - k);
        i = i2;
        j = j2;
    }
    x->unmatched += (ns - i) + (nr - j);
    free(sends);
    free(recvs);
}

/* ---- clocks ---- */

#define MAX_SAMPLES 4096  /* per process: plenty for a robust median */
#define MIN_TIMED_SAMPLES 16  /* timed ends enough to align a process by them alone */

/* The offset and error of one process from its end differences v[0..n)
 * (reordered; dev: scratch of n): the median; then, outliers left out
 * (further from it than XR_OUTLIER_MADS x 1.4826 MAD, and than
 * XR_OUTLIER_MIN_NS: an end recorded late, a calibration that jumped), the
 * median of the rest, and their spread as the error. */
static struct xr_clock robust_offset(double *v, double *dev, size_t n)
{
    double med = xr_median(v, n);
    for (size_t k = 0; k < n; k++)
        dev[k] = fabs(v[k] - med);
    double cut = XR_OUTLIER_MADS * 1.4826 * xr_median(dev, n);
    cut = cut > XR_OUTLIER_MIN_NS ? cut : XR_OUTLIER_MIN_NS;
    size_t kept = 0;
    for (size_t k = 0; k < n; k++)
        if (fabs(v[k] - med) <= cut)
            v[kept++] = v[k];
    med = xr_median(v, kept);
    for (size_t k = 0; k < kept; k++)
        dev[k] = fabs(v[k] - med);
    return (struct xr_clock){ .offset_ns = (int64_t)llround(med), .error_ns = 1.4826 * xr_median(dev, kept),
                              .samples = n, .rejected = n - kept, .estimated = true };
}

/* The end differences of file f's records with the processes estimated
 * before this round, into v (at most MAX_SAMPLES, spread evenly over its
 * collectives that end together); returns how many. together[op]: whether
 * op ends together on all ranks. One file at a time, so that one buffer
 * serves them all (32 KiB, where one per file took 32 MiB for 1,024). */
static size_t end_differences(const struct report *r, const struct crossrank *x, uint32_t f,
                              const bool *together, bool timed_only, double *v)
{
    const struct rank_file *file = &r->files[f];
    size_t candidates = 0, n = 0, k = 0;
    for (size_t j = 0; j < file->nevents; j++)
        candidates += together[file->events[j].op];
    size_t stride = candidates / MAX_SAMPLES + 1;
    for (size_t j = 0; j < file->nevents && n < MAX_SAMPLES; j++) {
        const struct op_event *e = &file->events[j];
        if (!together[e->op] || (timed_only && (e->flags & OP_STAMPED)) || k++ % stride)
            continue;
        const struct xr_instance *in = xr_find(x, e->comm, e->seq, op_replay(e));
        if (!in || in->n < 2)
            continue;
        const struct xr_member *m = x->members + in->first;
        size_t a = 0;
        while (a < in->n && (!x->clocks[m[a].file].estimated || (timed_only && !xr_timed(r, m[a]))))
            a++;
        if (a == in->n)
            continue;
        double anchor = (double)xr_event(r, m[a])->end_ns - (double)x->clocks[m[a].file].offset_ns;
        v[n++] = (double)e->end_ns - anchor;
    }
    return n;
}

/* Each process's offset from the reference process: from the differences
 * of their ends over the collectives they share (those that end together),
 * robust_offset; then processes that share collectives only with those
 * estimated in that round, and so on. Processes reached by none keep their
 * host's offset (0 on the reference host). */
static void estimate_clocks(struct report *r, struct crossrank *x)
{
    x->clocks = xcalloc(r->nfiles ? r->nfiles : 1, sizeof *x->clocks);
    if (!x->ninstances)
        return;
    bool together[256];
    for (unsigned op = 0; op < 256; op++)
        together[op] = ends_together(report_name(r, (uint8_t)op));
    uint32_t ref = x->members[x->instances[0].first].file;
    x->clocks[ref].estimated = true;
    double *v = xmalloc(MAX_SAMPLES * sizeof *v), *dev = xmalloc(MAX_SAMPLES * sizeof *dev);
    bool *fresh = xcalloc(r->nfiles, sizeof *fresh);
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t f = 0; f < r->nfiles; f++) {
            /* Timed ends first: a stamped end is known to the polls'
             * resolution only. Stamped ones where too few are timed. */
            size_t n = x->clocks[f].estimated ? 0 : end_differences(r, x, f, together, true, v);
            if (!x->clocks[f].estimated && n < MIN_TIMED_SAMPLES)
                n = end_differences(r, x, f, together, false, v);
            if (!n)
                continue;
            /* Estimated at the end of the round: its processes are anchors
             * only for the next. */
            x->clocks[f] = robust_offset(v, dev, n);
            x->clocks[f].estimated = false;
            fresh[f] = progress = true;
        }
        for (size_t f = 0; f < r->nfiles; f++)
            if (fresh[f]) {
                x->clocks[f].estimated = true;
                fresh[f] = false;
            }
    }
    free(fresh);
    free(v);
    free(dev);
}

/* How far file f's GPU times may be off its host's clock from the shim's
 * calibration (a constant that the alignment takes for part of the offset,
 * unseen in the ends' spread); 0 where the file does not say. */
static double calibration_error(const struct rank_file *f)
{
    double c = f->clock_calibration_error_ns;
    return isfinite(c) && c > 0 ? c : 0;
}

/* Per host: the median offset of its estimated processes; processes never
 * estimated take their host's. Its error, against the reference host: each
 * process's offset is the hosts' clocks' difference plus its own
 * calibration error less the reference process's, plus the spread of its
 * ends; the reference process's cancels between a host's median and the
 * reference host's, so the host's offset is off by at most the largest
 * (spread + calibration) of its processes plus the largest of the
 * reference host's. */
static void summarize_hosts(struct report *r, struct crossrank *x)
{
    if (!r->nfiles)
        return;
    const char **names = xmalloc(r->nfiles * sizeof *names);
    for (size_t i = 0; i < r->nfiles; i++)
        names[i] = r->files[i].host;
    qsort(names, r->nfiles, sizeof *names, cmp_cstr);
    x->hosts = xcalloc(r->nfiles, sizeof *x->hosts);
    for (size_t i = 0; i < r->nfiles; i++)
        if (!x->nhosts || strcmp(x->hosts[x->nhosts - 1].host, names[i]) != 0)
            x->hosts[x->nhosts++].host = names[i];
    free(names);
    double *v = xmalloc(r->nfiles * sizeof *v);
    for (size_t h = 0; h < x->nhosts; h++) {
        struct xr_host *host = &x->hosts[h];
        size_t n = 0;
        for (size_t i = 0; i < r->nfiles; i++) {
            if (strcmp(r->files[i].host, host->host) != 0)
                continue;
            host->files++;
            if (!x->clocks[i].estimated)
                continue;
            v[n++] = (double)x->clocks[i].offset_ns;
            host->samples += x->clocks[i].samples;
            host->rejected += x->clocks[i].rejected;
            double error = x->clocks[i].error_ns + calibration_error(&r->files[i]);
            if (error > host->error_ns)
                host->error_ns = error;
        }
        host->estimated = n > 0;
        host->offset_ns = (int64_t)llround(xr_median(v, n));
        for (size_t k = 0; k < n; k++) {
            double d = fabs(v[k] - (double)host->offset_ns);
            host->spread_ns = d > host->spread_ns ? d : host->spread_ns;
        }
        for (size_t i = 0; i < r->nfiles; i++)
            if (!x->clocks[i].estimated && strcmp(r->files[i].host, host->host) == 0)
                x->clocks[i].offset_ns = host->offset_ns;
    }
    free(v);
    /* The reference host (the reference process's) first, at offset 0. */
    for (size_t h = 0; h < x->nhosts; h++)
        if (x->ninstances &&
            strcmp(x->hosts[h].host, r->files[x->members[x->instances[0].first].file].host) == 0) {
            struct xr_host t = x->hosts[0];
            x->hosts[0] = x->hosts[h];
            x->hosts[h] = t;
        }
    int64_t base = x->hosts[0].offset_ns;
    for (size_t h = 0; h < x->nhosts; h++)
        x->hosts[h].offset_ns -= base;
    for (size_t h = 1; h < x->nhosts; h++)
        x->hosts[h].error_ns += x->hosts[0].error_ns;
    for (size_t i = 0; i < r->nfiles; i++) {
        r->files[i].clock_offset_ns = x->clocks[i].offset_ns;
        if (x->clocks[i].estimated && x->clocks[i].error_ns > x->clock_error_ns)
            x->clock_error_ns = x->clocks[i].error_ns;
    }
}

/* ---- per instance and per pair, in the aligned clock ---- */

static void measure(const struct report *r, struct crossrank *x)
{
    for (size_t i = 0; i < x->ninstances; i++) {
        struct xr_instance *in = &x->instances[i];
        const struct xr_member *m = x->members + in->first;
        in->earliest_start_ns = INT64_MAX;
        in->latest_start_ns = in->end_ns = INT64_MIN;
        size_t last = 0, earliest = 0;
        for (size_t k = 0; k < in->n; k++) {
            int64_t s = xr_start(r, m[k]), e = xr_end(r, m[k]);
            if (s < in->earliest_start_ns) {
                in->earliest_start_ns = s;
                earliest = k;
            }
            if (s > in->latest_start_ns) {
                in->latest_start_ns = s;
                last = k;
            }
            if (e > in->end_ns)
                in->end_ns = e;
        }
        in->last_rank = xr_event(r, m[last])->rank;
        in->last_file = m[last].file;
        in->skew_ns = (double)(in->latest_start_ns - in->earliest_start_ns);
        in->last_err_down_ns = xr_start_err_down(r, m[last]);
        in->all_timed = true;
        for (size_t k = 0; k < in->n && in->all_timed; k++)
            in->all_timed = xr_timed(r, m[k]);
        double waits = 0;
        for (size_t k = 0; k < in->n; k++)
            waits += (double)(in->latest_start_ns - xr_start(r, m[k]));
        in->others_wait_ns = in->n > 1 ? waits / (double)(in->n - 1) : 0;
        in->skew_sure_ns = in->skew_ns - in->last_err_down_ns - xr_start_err_up(r, m[earliest]);
        /* From the last arrival to the end: the last rank's own interval,
         * on its own clock, so the clocks' error does not enter it; known
         * where that rank's record is a timed pair. */
        const struct op_event *e = xr_event(r, m[last]);
        in->transfer_ns = xr_timed(r, m[last]) ? (double)(e->end_ns - e->start_ns) : 0;
        int n = in->nranks ? in->nranks : (int)in->n;
        in->busbw_gbs = in->transfer_ns > 0
            ? (double)in->bytes * xr_bus_factor(report_name(r, in->op), n) / in->transfer_ns : 0;
    }
    for (size_t i = 0; i < x->npairs; i++) {
        struct xr_pair *p = &x->pairs[i];
        int64_t s1 = xr_start(r, p->send), s2 = xr_start(r, p->recv);
        const struct op_event *a = xr_event(r, p->send), *b = xr_event(r, p->recv);
        p->skew_ns = (double)(s1 > s2 ? s1 - s2 : s2 - s1);
        /* The shorter side: the one that arrived second waited for nobody,
         * so its interval is the transfer (each on its own clock). */
        uint64_t da = a->end_ns - a->start_ns, db = b->end_ns - b->start_ns;
        p->transfer_ns = xr_timed(r, p->send) && xr_timed(r, p->recv) ? (double)(da < db ? da : db) : 0;
        p->busbw_gbs = p->transfer_ns > 0 ? (double)p->bytes / p->transfer_ns : 0;
    }
}

void crossrank_analyze(struct report *r, const char *expect_busbw, struct crossrank *x)
{
    memset(x, 0, sizeof *x);
    /* The busbw the user expects, where the job has no other reference. */
    if (expect_busbw && *expect_busbw)
        xr_parse_expect(x, expect_busbw);
    match_collectives(r, x);
    match_p2p(r, x);
    estimate_clocks(r, x);
    summarize_hosts(r, x);
    measure(r, x);
    /* Three times the clocks' error: a skew within it may be theirs. */
    x->threshold_ns = 3 * x->clock_error_ns > XR_MIN_WAIT_NS ? 3 * x->clock_error_ns : XR_MIN_WAIT_NS;
    xr_find_stragglers(r, x);
    xr_find_slow(r, x);
    xr_find_slow_links(r, x);
}

void crossrank_free(struct crossrank *x)
{
    free(x->members);
    free(x->instances);
    free(x->pairs);
    free(x->clocks);
    free(x->hosts);
    free(x->stragglers);
    free(x->waits);
    free(x->slow);
    free(x->suspects);
    xr_free_links(x);
    memset(x, 0, sizeof *x);
}
