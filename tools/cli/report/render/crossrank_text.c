/* The text report's cross-rank sections: how the clocks were aligned, the
 * stragglers, the slow transfers; each with its evidence. */
#include "render.h"
#include "crossrank_base.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool have_records(const struct crossrank *x)
{
    return x && (x->ninstances || x->npairs);
}

void print_clocks(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    if (!have_records(x))
        return;
    double corr = 0;
    size_t estimated = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        estimated += x->clocks[i].estimated;
    for (size_t h = 0; h < x->nhosts; h++)
        corr = x->hosts[h].spread_ns > corr ? x->hosts[h].spread_ns : corr;
    fprintf(out, "\nClocks, aligned on the ends of AllReduce, AllGather, ReduceScatter and AlltoAll\n");
    for (size_t h = 0; h < x->nhosts && x->nhosts > 1; h++) {
        const struct xr_host *host = &x->hosts[h];
        char name[SHOWN_MAX];
        shown(host->host, name);
        if (h == 0)
            fprintf(out, "  %-20s reference (%zu process%s)\n", name, host->files,
                    host->files == 1 ? "" : "es");
        else if (host->estimated)
            fprintf(out, "  %-20s %+.9f s +-%.1f us (%zu process%s)\n", name,
                    (double)host->offset_ns / 1e9, host->error_ns / 1e3, host->files,
                    host->files == 1 ? "" : "es");
        else
            fprintf(out, "  %-20s not estimated: it shares no such collective with the others; "
                    "its times are not comparable\n", name);
    }
    size_t samples = 0, rejected = 0;
    for (size_t h = 0; h < x->nhosts; h++) {
        samples += x->hosts[h].samples;
        rejected += x->hosts[h].rejected;
    }
    fprintf(out, "  %zu of %zu processes aligned; the ends agree within %.1f us; "
            "each process's own correction up to %.1f us\n",
            estimated, r->nfiles, x->clock_error_ns / 1e3, corr / 1e3);
    if (rejected)
        fprintf(out, "  %zu of %zu end differences left out as outliers (over %.0f x 1.4826 MAD "
                "from the median)\n", rejected, samples, XR_OUTLIER_MADS);
    fprintf(out, "  A skew under %.1f us is not called a straggler.\n", x->threshold_ns / 1e3);
}

/* Up to 4 of waits[0..n) (one communicator's, by rank) with the longest
 * mean wait (most) or the shortest, into pick[]; returns how many. */
static size_t pick_waits(const struct xr_wait *w, size_t n, bool most, size_t pick[4])
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j;
        if (k < 4)
            j = k++;
        else if (most ? w[i].wait_us_mean > w[pick[3]].wait_us_mean : w[i].wait_us_mean < w[pick[3]].wait_us_mean)
            j = 3;  /* in, the last of the 4 out */
        else
            continue;
        for (; j > 0 && (most ? w[pick[j - 1]].wait_us_mean < w[i].wait_us_mean
                              : w[pick[j - 1]].wait_us_mean > w[i].wait_us_mean); j--)
            pick[j] = pick[j - 1];
        pick[j] = i;
    }
    return k;
}

static void print_wait_list(const struct xr_wait *w, const size_t *pick, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s rank %d %.1f us", i ? "," : "", w[pick[i]].rank, w[pick[i]].wait_us_mean);
}

/* Each rank's own wait, one line per communicator (at most 8 of them). */
static void print_waits(const struct crossrank *x, FILE *out)
{
    size_t comms = 0;
    for (size_t i = 0; i < x->nwaits;) {
        size_t j = i;
        while (j < x->nwaits && x->waits[j].comm == x->waits[i].comm)
            j++;
        if (comms++ == 8) {
            size_t more = 1;
            for (size_t k = j; k < x->nwaits; k++)
                more += x->waits[k].comm != x->waits[k - 1].comm;
            fprintf(out, "  ... %zu more communicators (--json: crossrank.waits)\n", more);
            return;
        }
        const struct xr_wait *w = x->waits + i;
        size_t n = j - i, pick[4];
        fprintf(out, "  comm %016" PRIx64 ", each rank's own wait (latest start minus its own), mean over "
                "%zu collectives:\n   ", w->comm, w->instances);
        if (n <= 8) {
            for (size_t k = 0; k < n; k++)
                fprintf(out, "%s rank %d %.1f us", k == 0 ? "" : k % 4 ? "," : ",\n   ", w[k].rank,
                        w[k].wait_us_mean);
        } else {
            fprintf(out, " most:");
            print_wait_list(w, pick, pick_waits(w, n, true, pick), out);
            fprintf(out, ";\n    least:");
            print_wait_list(w, pick, pick_waits(w, n, false, pick), out);
        }
        fputc('\n', out);
        i = j;
    }
}

/* The i-th of a list of worst instances: its seq, and its replay when it
 * is an execution of a captured call ("3 replay 17"). */
static void print_seq(size_t i, uint64_t seq, uint64_t replay, FILE *out)
{
    fprintf(out, "%s %" PRIu64, i ? "," : "", seq);
    if (replay)
        fprintf(out, " replay %" PRIu64, replay);
}

static void print_straggler(const struct report *r, const struct xr_straggler *s, FILE *out)
{
    const struct rank_file *f = &r->files[s->file];
    char host[SHOWN_MAX], op[SHOWN_MAX];
    fprintf(out, "  comm %016" PRIx64 " rank %d (%s pid %lld): caused %.0f%% of the waiting, %.3f ms over %" PRIu64
            " calls (%zu told)\n", s->comm, s->rank, shown(f->host, host), f->pid, 100 * s->caused_share,
            s->caused_us_total / 1e3, s->calls, s->measured);
    fprintf(out, "    late mostly at %s, %.1f us after its previous collective (%.1f us before the others)\n",
            shown(report_name(r, s->op), op), s->gap_late_us, s->gap_other_us);
    fprintf(out, "    last in %zu of %zu collectives told (%.0f%%)", s->last, s->decided, 100 * s->last_fraction);
    if (s->decided < s->instances)
        fprintf(out, "; %zu more within the stamps' resolution", s->instances - s->decided);
    fprintf(out, "\n    held the others up %.1f us mean, %.1f us median\n    in", s->wait_us_mean, s->wait_us_median);
    for (size_t i = 0; i < s->nops; i++)
        fprintf(out, "%s %s", i ? "," : "", shown(report_name(r, s->ops[i]), op));
    fprintf(out, "; worst seqs");
    for (size_t i = 0; i < s->nworst; i++) {
        print_seq(i, s->worst_seq[i], s->worst_replay[i], out);
        fprintf(out, " (%.1f us)", s->worst_us[i]);
    }
    fputc('\n', out);
}

void print_stragglers(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    fprintf(out, "\nStragglers: ranks that start collectives last, while the others wait\n");
    if (!have_records(x)) {
        fprintf(out, "  No per-op records (NCCLTAP_OPS_MAX_MB=0, or none timed): nothing to match.\n");
        return;
    }
    if (!x->nstragglers)
        fprintf(out, "  None: no rank caused %.0f%% of its communicator's waiting, last by more than %.1f us at "
                "%d collectives or more, among %zu.\n", 100 * XR_STRAGGLER_MIN_SHARE, x->threshold_ns / 1e3,
                XR_STRAGGLER_MIN_LAST, x->ninstances);
    for (size_t i = 0; i < x->nstragglers; i++)
        print_straggler(r, &x->stragglers[i], out);
    print_waits(x, out);
    uint64_t dropped = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        dropped += r->files[i].events_dropped;
    if (dropped)
        fprintf(out, "  NOTE: %llu per-op records were dropped (the oldest, past NCCLTAP_OPS_MAX_MB, "
                "or not written):\n  the instances they were in are incomplete.\n",
                (unsigned long long)dropped);
    if (x->incomplete)
        fprintf(out, "  NOTE: %zu collectives were not recorded by every rank of their "
                "communicator (sampled, dropped\n  or unfinished) and are not counted.\n", x->incomplete);
}

static void print_slow(const struct report *r, const struct xr_slow *s, FILE *out)
{
    char b[16], op[SHOWN_MAX];
    fprintf(out, "  comm %016" PRIx64 " %s %s ", s->comm, shown(report_name(r, s->op), op),
            human_bytes((double)s->bytes, b));
    if (s->p2p)
        fprintf(out, "rank %d -> %d", s->src, s->dst);
    else
        fprintf(out, "ranks 0-%d", s->nranks - 1);
    if (s->reference == XR_REF_JOB)
        fprintf(out, ": %.2f GB/s median vs %.2f GB/s for the job", s->busbw_gbs, s->median_busbw_gbs);
    else
        fprintf(out, ": %.2f GB/s median vs %.2f GB/s expected (NCCLTAP_EXPECT_BUSBW_GBS)",
                s->busbw_gbs, s->expected_gbs);
    fprintf(out, ";\n    %zu of %zu %s slow; worst %s", s->slow, s->instances,
            s->p2p ? "transfers" : "instances", s->p2p ? "transfers (order)" : "seqs");
    for (size_t i = 0; i < s->nworst; i++) {
        print_seq(i, s->worst_seq[i], s->worst_replay[i], out);
        fprintf(out, " (%.2f GB/s)", s->worst_gbs[i]);
    }
    fputc('\n', out);
}

/* A communicator's send/recv busbw, sender by receiver: the matrix for up
 * to LINKS_MATRIX_MAX ranks, else its slowest and fastest pairs. */
#define LINKS_MATRIX_MAX 16

static void print_cells(const struct xr_links *l, FILE *out)
{
    char b[16];
    fprintf(out, "  comm %016" PRIx64 " send/recv busbw, GB/s at %s (median of each pair's transfers)",
            l->comm, human_bytes((double)l->p2p_bytes, b));
    if (l->nranks > LINKS_MATRIX_MAX) {
        const struct xr_link_cell *lo = &l->cells[0], *hi = &l->cells[0];
        for (size_t i = 1; i < l->ncells; i++) {
            lo = l->cells[i].busbw_gbs < lo->busbw_gbs ? &l->cells[i] : lo;
            hi = l->cells[i].busbw_gbs > hi->busbw_gbs ? &l->cells[i] : hi;
        }
        fprintf(out, ":\n    %zu pairs of %d ranks; slowest %d -> %d %.2f, fastest %d -> %d %.2f "
                "(--json: crossrank.links)\n", l->ncells, l->nranks, lo->src, lo->dst, lo->busbw_gbs,
                hi->src, hi->dst, hi->busbw_gbs);
        return;
    }
    fprintf(out, ", from row to column:\n    from\\to ");
    for (int d = 0; d < l->nranks; d++)
        fprintf(out, " %7d", d);
    size_t c = 0;
    for (int s = 0; s < l->nranks; s++) {
        fprintf(out, "\n    %7d", s);
        for (int d = 0; d < l->nranks; d++) {
            if (c < l->ncells && l->cells[c].src == s && l->cells[c].dst == d)
                fprintf(out, " %7.2f", l->cells[c++].busbw_gbs);
            else
                fprintf(out, " %7s", "-");
        }
    }
    fputc('\n', out);
}

/* Each rank's transfer time from the last arrival at the collective. */
static void print_transfer(const struct report *r, const struct xr_links *l, FILE *out)
{
    char b[16], op[SHOWN_MAX];
    fprintf(out, "  comm %016" PRIx64 " %s %s, each rank's end minus the last arrival, median of %zu:\n   ",
            l->comm, shown(report_name(r, l->coll_op), op), human_bytes((double)l->coll_bytes, b),
            l->coll_instances);
    if (l->nranks > LINKS_MATRIX_MAX) {
        int lo = 0, hi = 0;
        for (int k = 1; k < l->nranks; k++) {
            lo = l->transfer_us[k] < l->transfer_us[lo] ? k : lo;
            hi = l->transfer_us[k] > l->transfer_us[hi] ? k : hi;
        }
        fprintf(out, " shortest rank %d %.1f us, longest rank %d %.1f us (--json: crossrank.links)\n",
                lo, l->transfer_us[lo], hi, l->transfer_us[hi]);
        return;
    }
    for (int k = 0; k < l->nranks; k++)
        fprintf(out, "%s rank %d %.1f us", k == 0 ? "" : k % 6 ? "," : ",\n   ", k, l->transfer_us[k]);
    fputc('\n', out);
}

/* The matrices of the first LINKS_COMMS_MAX communicators. */
#define LINKS_COMMS_MAX 4

static void print_links(const struct report *r, const struct crossrank *x, FILE *out)
{
    for (size_t i = 0; i < x->nlinks; i++) {
        if (i == LINKS_COMMS_MAX) {
            fprintf(out, "  ... %zu more communicators (--json: crossrank.links)\n", x->nlinks - i);
            return;
        }
        if (x->links[i].ncells)
            print_cells(&x->links[i], out);
        if (x->links[i].transfer_us)
            print_transfer(r, &x->links[i], out);
    }
}

static void print_slow_link(const struct xr_slow_link *s, FILE *out)
{
    fprintf(out, "  SLOW LINK comm %016" PRIx64 " ", s->comm);
    if (!s->p2p)
        fprintf(out, "rank %d: its collectives end %.1f us after the last arrival vs %.1f us for the "
                "other ranks\n", s->rank, s->transfer_us, s->others_us);
    else if (s->rank < 0)
        fprintf(out, "rank %d <-> rank %d: send/recv %.2f GB/s vs %.2f GB/s expected (--expect-busbw)\n",
                s->src, s->dst, s->busbw_gbs, s->others_gbs);
    else
        fprintf(out, "rank %d: its %zu send/recv pairs %.2f GB/s (at most %.2f) vs %.2f GB/s %s\n",
                s->rank, s->pairs, s->busbw_gbs, s->fastest_gbs, s->others_gbs,
                s->reference == XR_REF_JOB ? "for the other pairs" : "expected (--expect-busbw)");
}

void print_slow_transfers(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    if (!have_records(x))
        return;
    fprintf(out, "\nSlow transfers: busbw from the last arrival to the end, under %.0f%% of the "
            "job's median for the op and size%s\n", 100 * XR_SLOW_FRACTION,
            x->nexpect ? " or of the busbw expected" : "");
    for (size_t i = 0; i < x->nslow_links; i++)
        print_slow_link(&x->slow_links[i], out);
    if (!x->nslow && !x->nslow_links)
        fprintf(out, "  None among %zu collectives and %zu send/receive pairs.\n",
                x->ninstances, x->npairs);
    for (size_t i = 0; i < x->nslow; i++)
        print_slow(r, &x->slow[i], out);
    for (size_t i = 0; i < x->nsuspects; i++)
        fprintf(out, "  comm %016" PRIx64 " rank %d is in all %zu slow pairs: look at its link\n",
                x->suspects[i].comm, x->suspects[i].rank, x->suspects[i].pairs);
    print_links(r, x, out);
    if (x->expect_error) {
        char bad[SHOWN_MAX];
        fprintf(out, "  NOTE: NCCLTAP_EXPECT_BUSBW_GBS not used: '%s' is %s.\n", shown_quoted(x->expect_bad, bad),
                x->expect_error);
    }
    if (x->uncompared) {
        char b[16], op[SHOWN_MAX];
        fprintf(out, "  NOTE: %zu op and size%s ran on one communicator only, with nothing to compare "
                "%s with (a slow link slows\n  every collective of it, on all ranks alike): e.g. %s %s "
                "at %.2f GB/s. Give the busbw the hardware\n  should reach, e.g. "
                "NCCLTAP_EXPECT_BUSBW_GBS=%s:GBS@%s nccltap report ...\n", x->uncompared,
                x->uncompared == 1 ? "" : "s", x->uncompared == 1 ? "it" : "them",
                shown(report_name(r, x->uncompared_op), op), human_bytes((double)x->uncompared_bytes, b),
                x->uncompared_gbs, op, b);
    }
    if (x->unmatched)
        fprintf(out, "  NOTE: %zu sends or receives had no recorded other side.\n", x->unmatched);
}
