#include "writers/prom_metrics.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "base/monotonic.h"
#include "nccl/nccl_ops.h"
#include "writers/prom_inspector.h"
#include "writers/prom_text.h"
#include "base/process.h"
#include "state/shared.h"
#include "state/step_marks.h"
#include "stats/stats.h"

/* One series key: a (communicator, op, size class), its datatypes merged. */
struct agg {
    const struct tap_comm *comm;
    uint8_t op, size_class;
    uint64_t calls, bytes;
    uint64_t captured, executions; /* CUDA graphs: calls captured, and their runs */
    uint64_t le[TAP_PROM_BUCKETS + 1]; /* per bucket, not yet cumulative; last: above all */
    uint64_t timed;
    double time_s;
    double d_bytes, d_busbytes, d_time_ns; /* in the last interval */
    size_t labels; /* its labels, escaped once per write: at labels_text + this */
};

/* What each statistics row had at the end of the last interval. */
struct prev {
    double bw_bytes, bw_busbytes;
    uint64_t time_sum_ns;
};

static struct prev *prev;
static unsigned nprev;
static unsigned *order;
static struct agg *aggs;
static unsigned cap; /* of order and aggs */

static int grow(unsigned rows)
{
    if (rows <= cap)
        return 0;
    unsigned n = cap ? cap : 64;
    while (n < rows)
        n *= 2;
    unsigned *o = realloc(order, n * sizeof *o);
    if (o)
        order = o;
    struct agg *a = realloc(aggs, n * sizeof *a);
    if (a)
        aggs = a;
    if (!o || !a)
        return -1;
    cap = n;
    return 0;
}

/* Rows of one key next to each other, communicators in creation order. */
static int by_key(const void *pa, const void *pb)
{
    const struct tap_stat *a = tap_stats_at(*(const unsigned *)pa), *b = tap_stats_at(*(const unsigned *)pb);
    if (a->comm->creation != b->comm->creation)
        return a->comm->creation < b->comm->creation ? -1 : 1;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if (a->size_class != b->size_class)
        return a->size_class < b->size_class ? -1 : 1;
    return 0;
}

/* The bucket (0 .. TAP_PROM_BUCKETS; the last is +Inf only) that holds the
 * statistics' histogram bucket b, [1.04^b, 1.04^(b+1)) ns: the first
 * bound 1.04^E with b + 1 <= E. */
static unsigned prom_bucket(unsigned b)
{
    if (b + 1 <= TAP_PROM_BUCKET_FIRST)
        return 0;
    unsigned k = (b + 1 - TAP_PROM_BUCKET_FIRST + TAP_PROM_BUCKET_STEP - 1) / TAP_PROM_BUCKET_STEP;
    return k > TAP_PROM_BUCKETS ? TAP_PROM_BUCKETS : k;
}

static void add_row(struct agg *g, const struct tap_stat *s, unsigned row)
{
    g->calls += s->calls;
    g->bytes += s->bytes_total;
    g->captured += s->captured;
    g->executions += s->executions;
    g->timed += s->steady + (s->has_first ? 1 : 0);
    g->time_s += (double)s->time_sum_ns * 1e-9 + (s->has_first ? (double)s->first_ns * 1e-9 : 0);
    if (s->has_first)
        g->le[prom_bucket(tap_stat_hist_bucket(s->first_ns))]++;
    for (unsigned b = 0; s->hist && b < TAP_HIST_BUCKETS; b++)
        if (s->hist[b])
            g->le[prom_bucket(b)] += s->hist[b];
    struct prev p = row < nprev ? prev[row] : (struct prev){0, 0, 0};
    g->d_bytes += s->bw_bytes - p.bw_bytes;
    g->d_busbytes += s->bw_busbytes - p.bw_busbytes;
    g->d_time_ns += (double)(s->time_sum_ns - p.time_sum_ns);
}

/* The rows of communicators on `gpu` merged by key, in aggs; their count. */
static unsigned gather(const char *gpu)
{
    unsigned rows = tap_stats_count(), n = 0;
    if (grow(rows) != 0)
        return 0;
    for (unsigned i = 0; i < rows; i++)
        if (!strcmp(tap_stats_at(i)->comm->gpu_uuid, gpu))
            order[n++] = i;
    if (n)  /* order is NULL before the first row: qsort's array may not be */
        qsort(order, n, sizeof *order, by_key);
    unsigned keys = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct tap_stat *s = tap_stats_at(order[i]);
        struct agg *g = keys ? &aggs[keys - 1] : NULL;
        if (!g || g->comm != s->comm || g->op != s->op || g->size_class != s->size_class) {
            g = &aggs[keys++];
            memset(g, 0, sizeof *g);
            g->comm = s->comm;
            g->op = s->op;
            g->size_class = s->size_class;
        }
        add_row(g, s, order[i]);
    }
    return keys;
}

static void comm_labels(FILE *f, const struct tap_comm *c)
{
    char rank[16], id[24];
    snprintf(rank, sizeof rank, "%d", c->rank);
    snprintf(id, sizeof id, "%016llx", (unsigned long long)c->id);
    tap_prom_label(f, "{", "job_id", tap_config.job_id);
    tap_prom_label(f, ",", "host", tap_process.host);
    tap_prom_label(f, ",", "gpu", c->gpu_uuid);
    tap_prom_label(f, ",", "rank", rank);
    tap_prom_label(f, ",", "comm", id);
    tap_prom_label(f, ",", "comm_name", c->name);
}

/* The size_class label of `bytes`: the power of two at or below it, "0"
 * when unknown (as the rank file's size_class). */
static void size_class_label(char *buf, size_t len, unsigned size_class, uint64_t bytes)
{
    snprintf(buf, len, "%llu", size_class || bytes ? 1ull << size_class : 0ull);
}

/* Each series' labels, escaped once for the ~30 lines that repeat them,
 * '{' and all but the closing '}'. */
static char *labels_text;

static int make_labels(unsigned n)
{
    size_t size;
    FILE *m = open_memstream(&labels_text, &size);
    if (!m)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        struct agg *g = &aggs[i];
        char cls[24];
        size_class_label(cls, sizeof cls, g->size_class, g->bytes);
        g->labels = (size_t)ftell(m);
        comm_labels(m, g->comm);
        tap_prom_label(m, ",", "op", tap_op_name((enum tap_op)g->op));
        tap_prom_label(m, ",", "size_class", cls);
        fputc('\0', m);
    }
    if (fclose(m) != 0) {
        labels_text = NULL;
        return -1;
    }
    return 0;
}

/* name{labels of g[,le="..."]} */
static void series(FILE *f, const char *name, const char *suffix, const struct agg *g, const char *le)
{
    fputs(name, f);
    fputs(suffix, f);
    fputs(labels_text + g->labels, f);
    if (le) {
        fputs(",le=\"", f);
        fputs(le, f);
        fputc('"', f);
    }
    fputs("} ", f);
}

static void counter_family(FILE *f, const char *name, const char *help, unsigned n, bool bytes)
{
    tap_prom_family(f, name, "counter", help);
    for (unsigned i = 0; i < n; i++) {
        series(f, name, "", &aggs[i], NULL);
        tap_prom_uint(f, bytes ? aggs[i].bytes : aggs[i].calls);
        fputc('\n', f);
    }
}

/* Executions of captured ops: series only for keys that have captures. */
static void executions_family(FILE *f, unsigned n)
{
    const char *name = "nccltap_op_executions_total";
    tap_prom_family(f, name, "counter",
                    "Runs of the NCCL operations captured into CUDA graphs: one per launch of a graph holding them");
    for (unsigned i = 0; i < n; i++) {
        if (!aggs[i].captured)
            continue;
        series(f, name, "", &aggs[i], NULL);
        tap_prom_uint(f, aggs[i].executions);
        fputc('\n', f);
    }
}

static void histogram_family(FILE *f, unsigned n)
{
    static char bounds[TAP_PROM_BUCKETS][32];
    if (!bounds[0][0])
        for (unsigned k = 0; k < TAP_PROM_BUCKETS; k++)
            snprintf(bounds[k], sizeof bounds[k], "%.6g",
                     pow(TAP_HIST_BASE, TAP_PROM_BUCKET_FIRST + k * TAP_PROM_BUCKET_STEP) * 1e-9);
    const char *name = "nccltap_op_duration_seconds";
    tap_prom_family(f, name, "histogram",
                    "Time of every timed op (CUDA events around the call on its stream), over the run");
    for (unsigned i = 0; i < n; i++) {
        const struct agg *g = &aggs[i];
        uint64_t cumulative = 0;
        for (unsigned k = 0; k < TAP_PROM_BUCKETS; k++) {
            cumulative += g->le[k];
            series(f, name, "_bucket", g, bounds[k]);
            tap_prom_uint(f, cumulative);
            fputc('\n', f);
        }
        series(f, name, "_bucket", g, "+Inf");
        tap_prom_uint(f, g->timed);
        fputc('\n', f);
        series(f, name, "_sum", g, NULL);
        tap_prom_value(f, g->time_s);
        fputc('\n', f);
        series(f, name, "_count", g, NULL);
        tap_prom_uint(f, g->timed);
        fputc('\n', f);
    }
}

static void bandwidth_family(FILE *f, const char *name, const char *help, unsigned n, bool bus)
{
    tap_prom_family(f, name, "gauge", help);
    for (unsigned i = 0; i < n; i++) {
        const struct agg *g = &aggs[i];
        if (g->d_time_ns <= 0)
            continue; /* nothing timed in the interval: no bandwidth, not 0 */
        series(f, name, "", g, NULL);
        tap_prom_value(f, (bus ? g->d_busbytes : g->d_bytes) / g->d_time_ns); /* bytes/ns = GB/s */
        fputc('\n', f);
    }
}

/* One gauge per communicator on `gpu`: the uint64_t member of its
 * progress at offset `member` (offsetof: the four gauges differ only in
 * that). */
static void progress_family(FILE *f, const char *gpu, const struct tap_snapshot *snap, const char *name,
                            const char *help, size_t member)
{
    tap_prom_family(f, name, "gauge", help);
    for (unsigned i = 0; i < tap_comm_count() && i < snap->nprogress; i++) {
        const struct tap_comm *c = tap_comm_at(i);
        if (strcmp(c->gpu_uuid, gpu))
            continue;
        fputs(name, f);
        comm_labels(f, c);
        fputs("} ", f);
        tap_prom_uint(f, *(const uint64_t *)((const char *)&snap->progress[c->creation] + member));
        fputc('\n', f);
    }
}

/* The labels of a communicator's oldest op not complete: the
 * communicator's, its op and size class. */
static void oldest_labels(FILE *f, const char *name, const struct tap_comm *c, const struct tap_comm_progress *p)
{
    char cls[24];
    size_class_label(cls, sizeof cls, tap_size_class(p->oldest_bytes), p->oldest_bytes);
    fputs(name, f);
    comm_labels(f, c);
    tap_prom_label(f, ",", "op", tap_op_name((enum tap_op)p->oldest_op));
    tap_prom_label(f, ",", "size_class", cls);
    fputs("} ", f);
}

/* When each communicator's oldest timed op not complete was called, as a
 * Unix time: PromQL's time() minus it is its age at every evaluation, also
 * when this process no longer rewrites its file (stopped, or stuck). And
 * its seq: the op a hang is stuck in, as the report and the hang files
 * name it. No sample for a communicator with nothing pending. */
static void oldest_family(FILE *f, const char *gpu, const struct tap_snapshot *snap)
{
    const char *name = "nccltap_comm_oldest_pending_timestamp_seconds", *seq = "nccltap_comm_oldest_pending_seq";
    tap_prom_family(f, name, "gauge",
                    "Unix time of the call of the oldest timed op not complete on the GPU (time() minus it: its age)");
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    double now_real = (double)real.tv_sec + (double)real.tv_nsec * 1e-9;
    uint64_t now = tap_monotonic_ns();
    for (unsigned i = 0; i < tap_comm_count() && i < snap->nprogress; i++) {
        const struct tap_comm *c = tap_comm_at(i);
        const struct tap_comm_progress *p = &snap->progress[c->creation];
        if (!p->pending || strcmp(c->gpu_uuid, gpu))
            continue;
        oldest_labels(f, name, c, p);
        double age_s = now > p->oldest_enqueue_ns ? (double)(now - p->oldest_enqueue_ns) * 1e-9 : 0;
        /* To the millisecond: tap_prom_value's 10 digits would round it
         * to the second. */
        fprintf(f, "%.3f\n", now_real - age_s);
    }
    tap_prom_family(f, seq, "gauge", "Seq of the oldest timed op not complete on the GPU (the op a hang is stuck in)");
    for (unsigned i = 0; i < tap_comm_count() && i < snap->nprogress; i++) {
        const struct tap_comm *c = tap_comm_at(i);
        const struct tap_comm_progress *p = &snap->progress[c->creation];
        if (!p->pending || strcmp(c->gpu_uuid, gpu))
            continue;
        oldest_labels(f, seq, c, p);
        tap_prom_uint(f, p->oldest_seq);
        fputc('\n', f);
    }
}

/* The series of the steps found from each communicator's calls while the
 * job runs (stats/steps_online.h): a counter and the last whole step's
 * figures. `seconds`: the value is ns, written as s. */
static uint64_t steps_seen(const struct tap_comm_steps *s) { return s->steps; }
static uint64_t step_calls(const struct tap_comm_steps *s) { return s->period; }
static uint64_t step_last(const struct tap_comm_steps *s) { return s->last_ns; }
static uint64_t step_last_nccl(const struct tap_comm_steps *s) { return s->last_nccl_ns; }

static const struct {
    const char *name, *type, *help;
    uint64_t (*value)(const struct tap_comm_steps *);
    bool seconds;
} comm_steps_series[] = {
    {"nccltap_comm_steps_total", "counter",
     "Training steps found from the communicator's calls (their pattern and the host's gaps)", steps_seen, false},
    {"nccltap_comm_step_calls", "gauge",
     "Calls a step of the communicator (0: its calls no longer repeat as they did)", step_calls, false},
    {"nccltap_comm_step_last_seconds", "gauge",
     "Seconds the last whole step took, from its first call to the next step's", step_last, true},
    {"nccltap_comm_step_last_nccl_seconds", "gauge",
     "Seconds of NCCL time in the last whole step: the union of its calls' intervals", step_last_nccl, true},
};

/* Each of those families, a series per communicator on `gpu` whose steps
 * were found (bounded: TAP_STEPS_COMMS). */
static void comm_steps_families(FILE *f, const char *gpu, const struct tap_snapshot *snap)
{
    for (size_t k = 0; k < sizeof comm_steps_series / sizeof comm_steps_series[0]; k++) {
        tap_prom_family(f, comm_steps_series[k].name, comm_steps_series[k].type, comm_steps_series[k].help);
        for (unsigned i = 0; i < tap_comm_count() && i < snap->nprogress; i++) {
            const struct tap_comm *c = tap_comm_at(i);
            const struct tap_comm_progress *p = &snap->progress[c->creation];
            if (!p->has_steps || strcmp(c->gpu_uuid, gpu))
                continue;
            uint64_t v = comm_steps_series[k].value(&p->steps);
            fputs(comm_steps_series[k].name, f);
            comm_labels(f, c);
            fputs("} ", f);
            if (comm_steps_series[k].seconds)
                fprintf(f, "%.9g\n", (double)v / 1e9);  /* a step may take microseconds */
            else {
                tap_prom_uint(f, v);
                fputc('\n', f);
            }
        }
    }
}

static void progress_families(FILE *f, const char *gpu, const struct tap_snapshot *snap)
{
    progress_family(f, gpu, snap, "nccltap_pending_ops", "Timed ops issued and not complete on the GPU",
                    offsetof(struct tap_comm_progress, pending));
    progress_family(f, gpu, snap, "nccltap_comm_issued_ops", "Ops issued on the communicator: the next op's seq",
                    offsetof(struct tap_comm_progress, issued));
    progress_family(f, gpu, snap, "nccltap_comm_arrived_ops",
                    "Ops the GPU stream is known to have reached (completed, or started and timed)",
                    offsetof(struct tap_comm_progress, arrived));
    progress_family(f, gpu, snap, "nccltap_comm_completed_ops",
                    "Ops known complete on the GPU: up to the latest timed op completed",
                    offsetof(struct tap_comm_progress, completed));
    oldest_family(f, gpu, snap);
    comm_steps_families(f, gpu, snap);
}

/* name{job_id,host,gpu,pid}: a series of this process's file. */
static void process_series(FILE *f, const char *gpu, const char *name)
{
    char pid[16];
    snprintf(pid, sizeof pid, "%d", tap_process.pid);
    fputs(name, f);
    tap_prom_label(f, "{", "job_id", tap_config.job_id);
    tap_prom_label(f, ",", "host", tap_process.host);
    tap_prom_label(f, ",", "gpu", gpu);
    tap_prom_label(f, ",", "pid", pid);
    fputc('}', f);
}

static void process_counter(FILE *f, const char *gpu, const char *name, const char *help, uint64_t v)
{
    tap_prom_family(f, name, "counter", help);
    process_series(f, gpu, name);
    fprintf(f, " %llu\n", (unsigned long long)v);
}

/* When this file was written, and how often it is: a process killed
 * leaves its file behind (no exit handler runs), and the rules use only
 * the series of GPUs whose files were rewritten lately
 * (nccltap:file_fresh), so that its last pending op is not a hang for
 * ever. With pid: two processes may share a GPU, each with its file. */
static void file_gauge(FILE *f, const char *gpu, const char *name, const char *help, double v)
{
    tap_prom_family(f, name, "gauge", help);
    process_series(f, gpu, name);
    fprintf(f, " %.3f\n", v);
}

static void file_families(FILE *f, const char *gpu)
{
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    file_gauge(f, gpu, "nccltap_file_written_timestamp_seconds", "Unix time at which nccltap wrote this file",
               (double)real.tv_sec + (double)real.tv_nsec * 1e-9);
    file_gauge(f, gpu, "nccltap_file_interval_seconds",
               "Seconds between two writes of this file (NCCLTAP_INTERVAL_MS)", (double)tap_config.interval_ms / 1e3);
}

/* The program's steps (nccltap_step(), state/step_marks.h), where it
 * marks them: how many, and how long the last whole one took. One series
 * each per process, whatever the steps' count. */
static void step_families(FILE *f, const char *gpu)
{
    uint64_t steps = tap_step_marks_total();
    if (!steps)
        return;
    process_counter(f, gpu, "nccltap_steps_total", "Training steps the program marked with nccltap_step()", steps);
    uint64_t last = tap_step_last_ns();
    if (!last)
        return;
    tap_prom_family(f, "nccltap_step_last_seconds", "gauge", "Seconds the last whole step marked took, mark to mark");
    process_series(f, gpu, "nccltap_step_last_seconds");
    fprintf(f, " %.9g\n", (double)last / 1e9);  /* a step may take microseconds */
}

void tap_prom_metrics_write(FILE *f, const char *gpu, bool process, const struct tap_snapshot *snap)
{
    file_families(f, gpu);
    unsigned n = gather(gpu);
    if (make_labels(n) != 0)
        n = 0; /* out of memory: no series this time, the families still valid */
    counter_family(f, "nccltap_ops_total", "NCCL operations called", n, false);
    counter_family(f, "nccltap_bytes_total", "Bytes of the NCCL operations called (nccl-tests' S)", n, true);
    executions_family(f, n);
    histogram_family(f, n);
    bandwidth_family(f, "nccltap_busbw_gbs", "Bus bandwidth (GB/s) of the ops timed in the last interval", n, true);
    bandwidth_family(f, "nccltap_algbw_gbs", "Algorithm bandwidth (GB/s) of the ops timed in the last interval", n,
                     false);
    free(labels_text);
    labels_text = NULL;
    progress_families(f, gpu, snap);
    if (!process)
        return;
    process_counter(f, gpu, "nccltap_dropped_ops_total", "Op records lost to a full queue (NCCLTAP_RING_SIZE)",
                    atomic_load(&tap_totals.dropped));
    process_counter(f, gpu, "nccltap_untimed_ops_total", "Ops that wanted timing when no CUDA event was free",
                    atomic_load(&tap_totals.untimed));
    process_counter(f, gpu, "nccltap_prom_ops_not_kept_total",
                    "Timed ops left out of the Inspector gauges: too many series in an interval",
                    tap_prom_inspector_overflow());
    step_families(f, gpu);
}

void tap_prom_metrics_next_interval(void)
{
    unsigned rows = tap_stats_count();
    if (rows > nprev) {
        struct prev *p = realloc(prev, rows * sizeof *p);
        if (!p)
            return; /* the next gauges cover two intervals */
        prev = p;
        nprev = rows;
    }
    for (unsigned i = 0; i < rows; i++) {
        const struct tap_stat *s = tap_stats_at(i);
        prev[i] = (struct prev){s->bw_bytes, s->bw_busbytes, s->time_sum_ns};
    }
}

void tap_prom_metrics_reset(void)
{
    /* The child's statistics start empty: so do their previous values. */
    prev = NULL;
    nprev = 0;
    order = NULL;
    aggs = NULL;
    cap = 0;
}
