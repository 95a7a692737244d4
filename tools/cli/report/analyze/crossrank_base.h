/* The cross-rank analysis's types (what crossrank_analyze returns in
 * struct crossrank, and each of its parts: instances, pairs, clocks,
 * stragglers, slow transfers) and the helpers its parts share: finding an
 * instance, a member's aligned times, medians, the worst three, bus
 * factors. The bottom of the cross-rank files: crossrank.c (matching,
 * clocks), stragglers.c and slow_transfers.c call it, and so do the
 * analyses and renderers that read r->cross; it calls none of them.
 *
 * Times of an instance are in the reference process's clock: a member's
 * start is e->start_ns - file->clock_offset_ns (xr_start). */
#ifndef NCCLTAP_CLI_REPORT_CROSSRANK_BASE_H
#define NCCLTAP_CLI_REPORT_CROSSRANK_BASE_H

#include "model.h"

#include <math.h>

/* One rank's record in an instance or a pair: r->files[file].events[event]. */
struct xr_member {
    uint32_t file, event;
};

/* One collective on all the ranks that recorded it: a call (replay 0),
 * or the replay-th execution of the call `seq` captured into a CUDA graph,
 * the same launch on every rank. */
struct xr_instance {
    uint64_t comm, seq, replay;
    uint64_t bytes;             /* S */
    uint8_t op;                 /* report_name(r, op) */
    bool grouped;               /* timed as part of a group: its interval is the group's */
    int nranks;                 /* the communicator's size; 0 if no file says */
    size_t first, n;            /* its members: x->members[first .. first + n), by rank */
    int64_t earliest_start_ns;  /* aligned starts (the reference clock) */
    int64_t latest_start_ns;
    int64_t end_ns;             /* the latest aligned end */
    int last_rank;              /* the rank that started last */
    uint32_t last_file;         /* and its file */
    double skew_ns;             /* latest start minus earliest: the longest wait */
    /* The skew less what the stamps' spans allow: the last rank's start may
     * be that much earlier, the earliest's that much later (0 when both
     * were timed). Above the threshold, the last rank was last for sure. */
    double skew_sure_ns;
    double last_err_down_ns;    /* the last rank's start: how much earlier it may be */
    bool all_timed;             /* every member a timed pair: its figures exact */
    /* The others' mean wait for the last rank (latest start minus each
     * other start): what it held each up by, on average. Unlike the skew,
     * not the extreme of several stamps' errors. */
    double others_wait_ns;
    double transfer_ns;         /* end minus latest start (the last rank's own interval);
                                   0 when that rank's record is stamped, not timed */
    double busbw_gbs;           /* S x bus factor / transfer time; 0 if not timed */
};

/* A send matched with its receive: the k-th op from src to dst on comm. */
struct xr_pair {
    uint64_t comm, order;
    int src, dst;
    uint64_t bytes;
    struct xr_member send, recv;
    double skew_ns;             /* |send start - recv start|, aligned */
    double transfer_ns;         /* the shorter of the two sides' intervals: the
                                   later to arrive waited for no one */
    double busbw_gbs;           /* S / transfer time */
};

/* How one process's clock was aligned with the reference process's. */
struct xr_clock {
    int64_t offset_ns;          /* = its rank_file.clock_offset_ns */
    double error_ns;            /* spread (1.4826 MAD) of the end differences kept */
    size_t samples;             /* collectives it was estimated from, outliers included */
    size_t rejected;            /* of those, outliers left out: further than
                                   XR_OUTLIER_MADS x 1.4826 MAD (at least
                                   XR_OUTLIER_MIN_NS) from the first median */
    bool estimated;             /* false: no shared collective; assumed 0 or its host's */
};

#define XR_OUTLIER_MADS 5.0
#define XR_OUTLIER_MIN_NS 1000.0

/* One host: the median offset of its processes, relative to the reference
 * host (the reference process's). */
struct xr_host {
    const char *host;
    int64_t offset_ns;
    double error_ns;            /* how far its offset may be off: the largest
                                   (spread + calibration error) of its
                                   processes plus the reference host's
                                   (crossrank.c, summarize_hosts) */
    double spread_ns;           /* the largest difference of one of its processes
                                   from the median: what each process's own
                                   GPU-to-host calibration adds */
    size_t files;
    size_t samples, rejected;   /* its processes' end differences, and the outliers */
    bool estimated;
};

/* A rank whose late arrivals cost its communicator's other ranks a share
 * of their waiting there. One accounting with struct xr_wait: at each
 * instance told, the others' waits (latest start minus each start) are
 * caused by the rank that started last, so over a communicator the waits
 * its ranks caused sum to the waits they experienced. Both are summed per
 * op over every call: measured at the instances told; at the others
 * (stamps whose spans hide a small skew), experienced at the mean of
 * auto's timed instances as small and caused as at the instances told,
 * in proportion; calls not recorded at the recorded ones' mean. */
struct xr_straggler {
    uint64_t comm;
    int rank;
    uint32_t file;
    size_t instances;           /* complete instances it took part in */
    /* Of those, the ones where who started last can be told: all but
     * stamped ones whose skew lies within what the stamps' spans allow
     * either way (the truth may be above the threshold or below it). */
    size_t decided;
    size_t last;                /* those it started last in, by more than the threshold */
    size_t late_all;            /* its communicator's instances where any rank started last so */
    /* Of its communicator's late instances, the heaviest that caused
     * XR_HEAVY_SHARE of the waiting at them (heavy_all), and those of them
     * it was last in (last_heavy). */
    size_t last_heavy, heavy_all;
    double last_fraction;       /* last / decided */
    size_t measured;            /* the communicator's instances told */
    uint64_t calls;             /* its collectives after its first: what the totals are over */
    double caused_us_total;     /* the others' waits it caused, over `calls` */
    double caused_share;        /* of the waits at its communicator's collectives, 0..1 */
    double next_us_total;       /* the most another rank of the communicator caused */
    double wait_us_mean, wait_us_median;  /* the others' mean wait at an instance it was last in */
    uint8_t ops[4];             /* the ops it was last in (first 4 kinds) */
    double ops_caused_us[4];    /* ... the others' waits at each, measured (not extrapolated) */
    size_t nops;
    uint8_t op;                 /* the op most of the waiting was at (ops[]) */
    /* Where it is late: the median time between its previous collective's
     * end and the start of those it was last in, and of the others, us.
     * Late after a long gap is late after work of its own (compute, data). */
    double gap_late_us, gap_other_us;
    uint64_t worst_seq[3];      /* its instances with the largest skew */
    uint64_t worst_replay[3];   /* ... and their replay numbers (0: calls) */
    double worst_us[3];
    size_t nworst;
};

/* Each rank's own wait at its communicator's collectives: the latest start
 * of the instance minus the rank's own start, over the instances a
 * straggler is looked for in (complete, after the first) whose skew can
 * be told (xr_straggler.decided; all of them where every rank timed its
 * ops). A rank that arrives early waits long; the straggler waits about
 * nothing. Within the clocks' error (threshold_ns) a wait is not told
 * from none. The total is over every call, as xr_straggler's: the same
 * instances, the same estimates for the rest. */
struct xr_wait {
    uint64_t comm;
    int rank;
    uint32_t file;
    size_t instances;           /* complete ones it took part in */
    size_t decided;             /* of those, the ones its wait is told at */
    size_t measured;            /* the communicator's instances told (xr_straggler.measured) */
    uint64_t calls;             /* what the total is over */
    double wait_us_total, wait_us_mean, wait_us_max;  /* mean: total / calls */
};

/* What a transfer is compared with. */
enum xr_reference {
    XR_REF_JOB,                 /* the job's median for the same op and size */
    XR_REF_EXPECTED,            /* NCCLTAP_EXPECT_BUSBW_GBS (struct xr_expect) */
};

/* A busbw the user expects (NCCLTAP_EXPECT_BUSBW_GBS=[OP:]GBS[@MINBYTES],
 * comma separated): transfers of op (any op when op_name is "") of at
 * least min_bytes well below it are slow, also where the job has nothing
 * to compare them with (a single communicator). */
struct xr_expect {
    char op_name[24];
    double gbs;
    uint64_t min_bytes;
};
#define XR_EXPECT_MAX 16        /* entries (expect_error says "more than 16") */

/* A communicator (collectives) or a pair (send/recv) whose transfer busbw
 * falls well below the job's median for the same op and size, or below
 * the busbw expected for it. */
struct xr_slow {
    uint64_t comm;
    uint8_t op;
    uint64_t bytes;
    bool p2p;
    int src, dst;               /* p2p: the pair */
    int nranks;                 /* collectives: the communicator's ranks, 0..nranks-1 */
    size_t instances, slow;     /* instances, and those below the threshold */
    double busbw_gbs;           /* the median over its instances */
    double median_busbw_gbs;    /* the job's median for (op, bytes) */
    enum xr_reference reference;  /* what it is well below: XR_REF_JOB first */
    double expected_gbs;        /* the busbw expected for it, 0: none given */
    uint64_t worst_seq[3];      /* lowest busbw first (p2p: the pair's order) */
    uint64_t worst_replay[3];   /* ... and their replay numbers (0: calls; p2p: 0) */
    double worst_gbs[3];
    size_t nworst;
};

/* A rank in every slow pair of a communicator (at least 2 pairs): the
 * link they share is at that rank. */
struct xr_suspect {
    uint64_t comm;
    int rank;
    size_t pairs;               /* slow pairs it is in (all of the communicator's) */
};

/* One pair's cell of a communicator's send/recv matrix. */
struct xr_link_cell {
    int src, dst;
    size_t transfers;           /* its matched pairs of the matrix's size */
    double busbw_gbs;           /* their median busbw (S / transfer time) */
};

/* What one communicator's links measured: the send/recv busbw of each pair
 * at the largest size sent (where bandwidth shows, not latency), and,
 * where it ran collectives, each rank's transfer time from the last
 * arrival at its largest one. Ranks are the communicator's, 0..nranks-1. */
struct xr_links {
    uint64_t comm;
    int nranks;
    uint64_t p2p_bytes;         /* the size of the cells' transfers; 0: no pair */
    uint8_t p2p_op;             /* their send's op (report_name) */
    struct xr_link_cell *cells; /* by src, then dst */
    size_t ncells;
    uint8_t coll_op;            /* the collective of transfer_us: the largest */
    uint64_t coll_bytes;        /* (op, bytes), complete and not grouped */
    size_t coll_instances;
    double *transfer_us;        /* per rank: median of its aligned end minus the
                                   latest start; NULL: no such collective */
};

/* A rank whose links stand apart: every pair it is in slower than
 * XR_SLOW_FRACTION x the median of the pairs without it (or, where every
 * pair has it, than the busbw expected), or its transfer time at the
 * collectives over 1 / XR_SLOW_FRACTION x the other ranks' median. Needs no
 * healthy majority: half the pairs or more may be slow. */
struct xr_slow_link {
    uint64_t comm;
    int rank;                   /* the slow end; -1: the pair src <-> dst, the only
                                   ranks of their pairs (2 ranks) */
    int src, dst;
    bool p2p;                   /* from send/recv pairs; false: from collectives */
    enum xr_reference reference;  /* JOB: pairs (ranks) without it; EXPECTED */
    uint64_t bytes;
    size_t pairs;               /* p2p: its pairs (cells) */
    double busbw_gbs;           /* p2p: the median of its pairs' busbw */
    double fastest_gbs;         /* p2p: the fastest of them (still below) */
    double others_gbs;          /* p2p: the median of the pairs without it, or expected */
    double transfer_us;         /* collectives: its transfer time */
    double others_us;           /* collectives: the median of the other ranks' */
};

#define XR_SLOW_FRACTION 0.5    /* "well below": under half the job's median */
/* A send/recv pair is judged (a slow link, a finding) from this many matched
 * transfers or more: under `auto` the two sides of a transfer are timed on
 * different calls now and then, and a pair matched 3 times read 49 against
 * 189 GB/s on a healthy simulated ring (grouped send+recv). */
#define XR_LINK_MIN_TRANSFERS 5
#define XR_MIN_WAIT_NS 5000.0   /* a skew under 5 us is never a straggler */
/* A rank is listed in the Stragglers section when it caused at least this
 * share of its communicator's waiting, and was last beyond the threshold
 * at least XR_STRAGGLER_MIN_LAST times (one late call is a mishap): who
 * made the others wait, not who was last most often. */
#define XR_STRAGGLER_MIN_SHARE 0.1
/* The late instances that count in who is last often (xr_straggler.
 * last_heavy): the heaviest, which caused this share of the waiting at
 * late instances. A rank whose host stalls at every 10th step is last at
 * 5% of the collectives, and at each costs 1000 times what the others'
 * jitter of a few us, last at the rest, costs. Half, not more: on 2
 * GPUs a DDP rank whose host slept 50 ms every 5th step caused 75% of the
 * waiting in its 24 stalls, and the next 80% took in 10 of the other
 * rank's 1.5 ms bursts (30 of 40: not beyond chance with 2 ranks). */
#define XR_HEAVY_SHARE 0.5
#define XR_STRAGGLER_MIN_LAST 3

struct crossrank {
    struct xr_member *members;
    size_t nmembers;
    struct xr_instance *instances;  /* by comm, then seq, then replay */
    size_t ninstances;
    size_t incomplete;              /* instances some rank of the communicator did not record */
    struct xr_pair *pairs;          /* by comm, src, dst, order */
    size_t npairs;
    size_t unmatched;               /* sends or receives without their other side */
    struct xr_clock *clocks;        /* per file, as r->files */
    struct xr_host *hosts;          /* the reference host first */
    size_t nhosts;
    double clock_error_ns;          /* the largest error of an estimated clock */
    double threshold_ns;            /* skew under this is not called a straggler */
    struct xr_straggler *stragglers;  /* most waiting caused first */
    size_t nstragglers;
    struct xr_wait *waits;          /* by comm, then rank */
    size_t nwaits;
    struct xr_slow *slow;           /* lowest busbw relative to the median first */
    size_t nslow;
    struct xr_suspect *suspects;    /* ranks in every slow pair of their communicator */
    size_t nsuspects;
    struct xr_links *links;         /* per communicator, by comm */
    size_t nlinks;
    struct xr_slow_link *slow_links;  /* ranks (pairs) whose links stand apart, by comm */
    size_t nslow_links;
    struct xr_expect expect[XR_EXPECT_MAX];  /* NCCLTAP_EXPECT_BUSBW_GBS */
    size_t nexpect;
    const char *expect_error;       /* why NCCLTAP_EXPECT_BUSBW_GBS was not used; NULL */
    char expect_bad[48];            /* the entry it could not use */
    /* Collective (op, bytes) run by a single communicator, not grouped,
     * with no busbw expected for them: nothing to compare them with. */
    size_t uncompared;
    uint8_t uncompared_op;          /* the one with the most instances */
    uint64_t uncompared_bytes;
    double uncompared_gbs;          /* its median busbw */
};

/* A member's record, and its start and end in the reference clock. */
static inline const struct op_event *xr_event(const struct report *r, struct xr_member m)
{
    return &r->files[m.file].events[m.event];
}
static inline int64_t xr_start(const struct report *r, struct xr_member m)
{
    return (int64_t)xr_event(r, m)->start_ns - r->files[m.file].clock_offset_ns;
}
static inline int64_t xr_end(const struct report *r, struct xr_member m)
{
    return (int64_t)xr_event(r, m)->end_ns - r->files[m.file].clock_offset_ns;
}
/* How much later (up) or earlier (down) than its start its true start
 * may be, ns: 0 for a timed record; for a stamped one, half its span
 * either way, or, for a start taken at the call, its span up and 0 down.
 * A span saturated in op_event (65 ms or more: a reducer kept off its CPU)
 * bounds nothing: infinite, so that nothing is told from that start. */
static inline double xr_span_ns(const struct op_event *e)
{
    return e->start_span_us == UINT16_MAX ? INFINITY : (double)e->start_span_us * 1e3;
}
static inline double xr_start_err_up(const struct report *r, struct xr_member m)
{
    const struct op_event *e = xr_event(r, m);
    return e->start_span_us ? xr_span_ns(e) * (e->flags & OP_START_AT_CALL ? 1 : 0.5) : 0;
}
static inline double xr_start_err_down(const struct report *r, struct xr_member m)
{
    const struct op_event *e = xr_event(r, m);
    return e->flags & OP_START_AT_CALL || !e->start_span_us ? 0 : xr_span_ns(e) * 0.5;
}
/* Whether its interval is a timed pair's, exact. */
static inline bool xr_timed(const struct report *r, struct xr_member m)
{
    return !(xr_event(r, m)->flags & OP_STAMPED);
}

/* The instance of (comm, seq, replay), or NULL. */
const struct xr_instance *xr_find(const struct crossrank *x, uint64_t comm, uint64_t seq, uint64_t replay);

/* nccl-tests' bus bandwidth factor of op `name` on n ranks (nccl_ops.h's,
 * by the op's name as the files spell it); 1 for a name NCCL does not
 * have, or no ranks. */
double xr_bus_factor(const char *name, int n);

/* Whether op `name` is one rank's call, never matched in instances: a
 * send or a receive (matched in pairs), or a one-sided op. */
bool xr_is_p2p(const char *name);
/* Whether op `name` has a root (tap_op_is_rooted). */
bool xr_is_rooted(const char *name);

/* Keeps the 3 worst (seq, replay, value) seen in seq[], replay[], val[]
 * (*n of them), worst first: the highest values when `highest`, else the
 * lowest. */
void xr_keep_worst(uint64_t seq[3], uint64_t replay[3], double val[3], size_t *n, uint64_t s, uint64_t rp,
                   double v, bool highest);

/* The median of v[0..n) (reordered); 0 when n is 0. */
double xr_median(double *v, size_t n);

#endif
