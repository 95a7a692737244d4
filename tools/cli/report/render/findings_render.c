/* The Findings block (analyze/findings.h): one line per finding, worst
 * first, with its evidence and the section to read next; or one line that
 * says what was checked and found healthy. The same lines are --json's
 * "findings" (each entry's "text") and all that `nccltap report
 * --findings` prints. */
#include "render.h"
#include "escape.h"
#include "findings.h"
#include "mismatch.h"
#include "settings.h"
#include "format.h"
#include "summary.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
    [FINDING_MISMATCH] = "MISMATCH",
    [FINDING_HANG] = "HANG",
    [FINDING_STALL] = "STALL",
    [FINDING_STRAGGLER] = "STRAGGLER",
    [FINDING_SLOW_LINK] = "SLOW LINK",
    [FINDING_SLOW_TRANSFER] = "SLOW",
    [FINDING_BELOW_EXPECTED] = "BELOW EXPECTED",
    [FINDING_OS] = "OS",
    [FINDING_SETTINGS] = "SETTINGS",
};

/* Its JSON "kind". */
static const char *const kind_keys[] = {
    [FINDING_MISMATCH] = "mismatch",
    [FINDING_HANG] = "hang",
    [FINDING_STALL] = "stall",
    [FINDING_STRAGGLER] = "straggler",
    [FINDING_SLOW_LINK] = "slow_link",
    [FINDING_SLOW_TRANSFER] = "slow_transfer",
    [FINDING_BELOW_EXPECTED] = "below_expected",
    [FINDING_OS] = "os",
    [FINDING_SETTINGS] = "settings",
};

/* The section's heading in the text, and its key in --json. */
static const char *const section_titles[] = {
    [SECTION_MISMATCHES] = "Mismatches",
    [SECTION_HANG] = "Hang",
    [SECTION_STRAGGLERS] = "Stragglers",
    [SECTION_SLOW_TRANSFERS] = "Slow transfers",
    [SECTION_OS_INTERFERENCE] = "OS interference",
    [SECTION_SETTINGS] = "Settings",
};
static const char *const section_keys[] = {
    [SECTION_MISMATCHES] = "mismatches",
    [SECTION_HANG] = "hang",
    [SECTION_STRAGGLERS] = "stragglers",
    [SECTION_SLOW_TRANSFERS] = "slow_transfers",
    [SECTION_OS_INTERFERENCE] = "os_interference",
    [SECTION_SETTINGS] = "settings",
};

/* 2553 -> "2,553". */
static const char *grouped(size_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%zu", v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* "8.0 s", "42.0 ms", "200.0 us". */
static const char *duration(double us, char buf[32])
{
    if (us >= 1e6)
        snprintf(buf, 32, "%.1f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, 32, "%.1f ms", us / 1e3);
    else
        snprintf(buf, 32, "%.1f us", us);
    return buf;
}

/* " (host h, pid p)" for the culprit's process, when known. */
static void print_process(const struct rank_file *f, FILE *out)
{
    char host[SHOWN_MAX];
    if (f)
        fprintf(out, " (host %s, pid %lld)", shown(f->host, host), f->pid);
}

/* Who issued what at the communicator's first mismatched collective:
 * the sides that differ, then what most ranks issued; 1 against 1, each. */
static void print_mismatch_finding(const struct finding *f, FILE *out)
{
    const struct mismatch *m = f->mismatch;
    fprintf(out, "comm %016" PRIx64 " seq %" PRIu64, f->comm, f->seq);
    if (f->replay)
        fprintf(out, " replay %" PRIu64, f->replay);
    fputs(m->majority ? ": " : ": the ranks disagree: ", out);
    for (size_t k = m->majority ? 1 : 0; k < m->nsides; k++) {
        const struct mismatch_side *s = &m->sides[k];
        if (k > (m->majority ? 1u : 0u))
            fputs("; ", out);
        print_mismatch_ranks(s, out);
        if (k == 1)
            print_process(s->file, out);
        fputs(" issued ", out);
        print_mismatch_call(s, out);
        print_finding_site(s->site, out);
    }
    if (m->majority) {
        const struct mismatch_side *s = &m->sides[0];
        fprintf(out, ", where %zu ranks (", s->nranks);
        print_rank_list(s->ranks, s->nranks, out);
        fputs(") issued ", out);
        print_mismatch_call(s, out);
        print_finding_site(s->site, out);
    }
    char n[32];
    if (f->count > 1)
        fprintf(out, "; %s collectives mismatched on it, this the first", grouped(f->count, n));
}

/* The communicator's first setting that differs, and how many do. */
static void print_settings_finding(const struct finding *f, FILE *out)
{
    fprintf(out, "comm %016" PRIx64 ": ", f->comm);
    print_setting_diff(f->setting, true, out);
    if (f->count > 1)
        fprintf(out, "; %zu settings differ on it", f->count);
    if (f->of)
        fprintf(out, "; the same on %zu more communicator%s", f->of, f->of == 1 ? "" : "s");
}

/* A hang that completed later: who waited, for whom, how long. */
static void print_stall_finding(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    fprintf(out, "%s ", f->nwaiting == 1 ? "rank" : "ranks");
    print_rank_list(f->waiting, f->nwaiting, out);
    fprintf(out, " waited %s for rank %d", duration(f->wait_us, d), f->rank);
    print_process(f->file, out);
    fputs(", past the hang timeout, then it completed", out);
    print_finding_site(f->site, out);
}

/* " float32 sum root 2": what else a hang's call was given, where known. */
static void print_call_detail(const struct hang_call *c, FILE *out)
{
    char dtype[SHOWN_MAX];
    if (c->dtype[0])
        fprintf(out, " %s", shown(c->dtype, dtype));
    if (op_redop_name(c->redop))
        fprintf(out, " %s", op_redop_name(c->redop));
    if (c->root >= 0)
        fprintf(out, " root %d", c->root);
}

/* Whether a hang formed on a mismatch: every rank there, different calls. */
static bool hang_mismatched(const struct finding *f)
{
    return f->hang && f->hang->ncalls >= 2 && !f->nmissing;
}

/* "rank 1 (host h, pid p) waits in AllGather 4.0M, where 3 ranks (0, 2-3)
 * wait in AllReduce 1.0M": the calls that differ, then the most common. */
static void print_hang_calls(const struct finding *f, FILE *out)
{
    const struct hang_instance *h = f->hang;
    for (size_t k = 1; k <= h->ncalls; k++) {
        const struct hang_call *c = &h->calls[k % h->ncalls];
        char op[SHOWN_MAX], size[16];
        if (k > 1)
            fputs(k == h->ncalls ? ", where " : ", ", out);
        if (c->nranks == 1) {
            fprintf(out, "rank %d", c->ranks[0]);
        } else {
            fprintf(out, "%zu ranks (", c->nranks);
            print_rank_list(c->ranks, c->nranks, out);
            fputc(')', out);
        }
        if (k == 1)
            print_process(f->file, out);
        fprintf(out, " wait%s in %s %s", c->nranks == 1 ? "s" : "", shown(c->op, op),
                human_bytes((double)c->bytes, size));
        print_call_detail(c, out);
    }
}

static void print_hang_finding(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    if (hang_mismatched(f)) {
        fputs("a mismatch, not a missing rank: ", out);
        print_hang_calls(f, out);
        fprintf(out, ", for %s", duration(f->wait_us, d));
    } else if (f->nmissing) {
        const struct hang_missing *m = &f->missing[0];
        fprintf(out, "rank %d", m->rank);
        print_process(f->file, out);
        /* Below S - 1, the latest op known complete there: auto timed none
         * of the ops between, and its GPU stopped somewhere after. */
        if (m->issued_stuck && m->last_seq >= 0)
            fprintf(out, m->last_seq + 1 == (int64_t)f->seq ? " never reached it (its GPU stopped at seq %" PRId64 ")"
                    : " never reached it (its GPU known to have completed up to seq %" PRId64 ")", m->last_seq);
        else if (m->issued_stuck)
            fputs(" never reached it (its GPU completed no op on this communicator)", out);
        else if (m->last_seq >= 0)
            fprintf(out, " never issued it (its last op is seq %" PRId64 ")", m->last_seq);
        else
            fputs(" issued no op on this communicator", out);
        if (f->nmissing > 1)
            fprintf(out, ", and %zu more rank%s", f->nmissing - 1, f->nmissing == 2 ? "" : "s");
        fprintf(out, ", %s ", f->nwaiting == 1 ? "rank" : "ranks");
        if (f->nwaiting)
            print_rank_list(f->waiting, f->nwaiting, out);
        else
            fputs("none", out);
        fprintf(out, " waiting %s", duration(f->wait_us, d));
    } else {
        fputs("ranks ", out);
        print_rank_list(f->waiting, f->nwaiting, out);
        fprintf(out, " all waiting %s %s: which rank's GPU did not reach it cannot be told", f->done_before >= 0 ?
                "in it or before it" : "in it", duration(f->wait_us, d));
        if (f->done_before >= 0)
            fprintf(out, " (GPUs known to have completed up to seq %" PRId64 "; auto timed none of the ops since: "
                    "NCCLTAP_TIMING=all times every op)", f->done_before);
        else if (f->untimed)
            fputs(" (auto timed it on no rank; NCCLTAP_TIMING=all times every op)", out);
    }
    print_finding_site(f->site, out);
}

/* Where a straggler is late: at the first collective after work of its
 * own when the gap before its late collectives stands out. */
static void print_straggler_where(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], late[32], other[32];
    fprintf(out, "late at %s", f->op ? shown(f->op, op) : "collectives");
    if (f->gap_late_us >= 100.0 && f->gap_late_us >= 2.0 * f->gap_other_us)
        fprintf(out, " after its own work (%s since its previous collective, %s before the others)",
                duration(f->gap_late_us, late), duration(f->gap_other_us, other));
}

static void print_straggler_finding(const struct finding *f, const char *sep, FILE *out)
{
    char d[32], total[32], n[32], of[32], m[32], c[32];
    fprintf(out, "rank %d", f->rank);
    print_process(f->file, out);
    fprintf(out, " on comm %016" PRIx64 ": the others waited %s for it", f->comm, duration(f->cost_us, total));
    fputs(sep, out);
    print_straggler_where(f, out);
    fputs(sep, out);
    if (!isnan(f->share))
        fprintf(out, "%.0f%% of their NCCL time; ", 100.0 * f->share);
    fprintf(out, "%s of %s collectives told, %s each; measured over %s", grouped(f->count, n),
            grouped(f->of, of), duration(f->wait_us, d), grouped(f->measured, m));
    if (f->calls > f->measured)
        fprintf(out, " of %s calls, the rest estimated", grouped(f->calls, c));
}

/* A straggler's lateness the OS explains (the OS rows of its late
 * instances). `sep` before it, as for print_os_worst. */
static void print_straggler_os(const struct finding *f, const char *sep, FILE *out)
{
    char d[32];
    if (f->kind == FINDING_STRAGGLER && f->late_os_us > 0.0)
        fprintf(out, "%sit was descheduled before its calls for %.0f%% of that wait (%s preempted: see OS "
                "interference)", sep, 100.0 * f->late_os_share, duration(f->late_os_us, d));
}

static void print_slow_finding(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], size[16];
    if (f->op)
        shown(f->op, op);
    else
        snprintf(op, sizeof op, "send/recv");
    human_bytes((double)f->bytes, size);
    if (f->kind == FINDING_SLOW_LINK && f->transfer_us > 0.0) {
        fprintf(out, "at rank %d", f->rank);
        print_process(f->file, out);
        fprintf(out, ": its collective transfers on comm %016" PRIx64 " take %.1f us vs %.1f us on the other ranks",
                f->comm, f->transfer_us, f->others_us);
        return;
    }
    if (f->kind == FINDING_SLOW_LINK && f->suspect) {
        fprintf(out, "at rank %d", f->rank);
        print_process(f->file, out);
        fprintf(out, ": in all %zu slow send/recv pairs on comm %016" PRIx64 ", the slowest %s %s %.2f GB/s vs "
                "%.2f GB/s %s", f->count, f->comm, op, size, f->busbw_gbs, f->reference_gbs,
                f->expected ? "expected" : "for the job");
        return;
    }
    if (f->kind == FINDING_SLOW_LINK && f->peer < 0) {
        fprintf(out, "at rank %d", f->rank);
        print_process(f->file, out);
        fprintf(out, ": its %zu send/recv pairs on comm %016" PRIx64 " %.2f GB/s vs %.2f GB/s for the pairs "
                "without it", f->count, f->comm, f->busbw_gbs, f->reference_gbs);
        return;
    }
    if (f->kind == FINDING_SLOW_LINK && f->of == 0) {  /* a link of slow_links.c: no instance count */
        fprintf(out, "rank %d <-> rank %d: %s %s %.2f GB/s vs %.2f GB/s %s on comm %016" PRIx64, f->rank, f->peer,
                op, size, f->busbw_gbs, f->reference_gbs, f->expected ? "expected" : "for the other pairs",
                f->comm);
        return;
    }
    if (f->kind == FINDING_SLOW_LINK)
        fprintf(out, "rank %d <-> rank %d: %s %s %.2f GB/s vs %.2f GB/s for the other pairs", f->rank, f->peer,
                op, size, f->busbw_gbs, f->reference_gbs);
    else if (f->kind == FINDING_SLOW_TRANSFER)
        fprintf(out, "%s %s on ranks 0-%d: %.2f GB/s vs %.2f GB/s for the job", op, size, f->nranks - 1,
                f->busbw_gbs, f->reference_gbs);
    else if (f->peer >= 0)
        fprintf(out, "%s %s rank %d -> rank %d: %.2f GB/s vs %.2f expected", op, size, f->rank,
                f->peer, f->busbw_gbs, f->reference_gbs);
    else
        fprintf(out, "%s %s %.2f GB/s vs %.2f expected", op, size, f->busbw_gbs,
                f->reference_gbs);
    char n[32], of[32];
    fprintf(out, " on comm %016" PRIx64 ", %s of %s slow", f->comm, grouped(f->count, n), grouped(f->of, of));
}

static void print_os_finding(const struct finding *f, FILE *out)
{
    char d[32], by[SHOWN_MAX];
    fprintf(out, "rank %d", f->rank);
    print_process(f->file, out);
    fprintf(out, " descheduled before its calls: the others waited %s for it (%.0f%% of their NCCL time",
            duration(f->wait_us, d), 100.0 * f->share);
    if (f->by)
        fprintf(out, "; it was preempted mostly by %s", shown(f->by, by));
    fputc(')', out);
}

/* The OS finding's worst op: its thread, the time off the CPU, preempted.
 * `sep` before it: a new line in the text (120 columns), "; " elsewhere. */
static void print_os_worst(const struct finding *f, const char *sep, FILE *out)
{
    if (f->kind != FINDING_OS || !f->op)
        return;
    char off[32], pre[32], thread[SHOWN_MAX], op[SHOWN_MAX];
    fprintf(out, "%sits %s thread%s%s was off CPU for %s during %s seq %" PRIu64, sep,
            f->nccl_thread ? "NCCL" : "calling", f->nccl_thread ? " " : "",
            f->nccl_thread && f->thread ? shown(f->thread, thread) : "", duration(f->offcpu_us, off),
            shown(f->op, op), f->seq);
    if (f->replay)
        fprintf(out, " replay %" PRIu64, f->replay);
    if (f->preempted_us > 0)
        fprintf(out, ", preempted %s", duration(f->preempted_us, pre));
}

/* " on host H" where the culprit's host is known. */
static void print_on_host(const struct finding *f, FILE *out)
{
    char host[SHOWN_MAX];
    if (f->file)
        fprintf(out, " on host %s", shown(f->file->host, host));
}

/* "--pid P" where the culprit's process is known, else "--pid <pid>". */
static void print_pid(const struct finding *f, FILE *out)
{
    if (f->file)
        fprintf(out, "%lld", f->file->pid);
    else
        fputs("<pid>", out);
}

/* What to do next about a finding: one line, what to look at and the
 * command (the alerts' descriptions say the same, docs/findings.md). */
static void print_next_step(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], size[16];
    human_bytes((double)f->bytes, size);
    switch (f->kind) {
    case FINDING_MISMATCH:
        fprintf(out, "why rank %d's call at seq %" PRIu64 " differs: a branch on the rank, a size computed per "
                "rank, or ranks running different code (the call sites above); every rank's calls: "
                "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL", f->rank, f->seq);
        break;
    case FINDING_SETTINGS:
        fprintf(out, "make every rank's NCCL settings the same: compare rank %d's environment (env | grep ^NCCL_ "
                "in its process", f->rank);
        print_on_host(f, out);
        fputs(") and the config each rank passes with the others' (the launcher, per-node profiles); "
              "NCCL_DEBUG=INFO prints the values NCCL took", out);
        break;
    case FINDING_HANG:
        if (hang_mismatched(f)) {
            fprintf(out, "why rank %d's call at seq %" PRIu64 " differs (the call sites: the Hang section): a branch "
                    "on the rank, a size computed per rank; every rank's calls: NCCL_DEBUG=INFO "
                    "NCCL_DEBUG_SUBSYS=COLL", f->rank, f->seq);
            break;
        }
        fprintf(out, "where rank %d is: py-spy dump --pid ", f->rank);
        print_pid(f, out);
        fputs(" (or gdb -p ", out);
        print_pid(f, out);
        fputs(" -batch -ex 'thread apply all bt')", out);
        print_on_host(f, out);
        fputs("; is it alive, its GPU healthy: dmesg | grep -iE 'xid|oom' there", out);
        break;
    case FINDING_STALL:
        fprintf(out, "what rank %d did meanwhile (a checkpoint, data loading, a slow host): py-spy record --pid ",
                f->rank);
        print_pid(f, out);
        print_on_host(f, out);
        fputs(" next time; the OS interference section for its threads", out);
        break;
    case FINDING_STRAGGLER:
        fprintf(out, "what rank %d does before its %s: py-spy record --pid ", f->rank, f->op ? shown(f->op, op)
                                                                                             : "collectives");
        print_pid(f, out);
        print_on_host(f, out);
        fputs(" (or nsys on that rank); throttling: nvidia-smi -q -d PERFORMANCE there", out);
        break;
    case FINDING_SLOW_LINK:
        fputs("the link's state: nvidia-smi topo -m; nvidia-smi nvlink --status", out);
        print_on_host(f, out);
        fputs("; the transport NCCL chose: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH", out);
        break;
    case FINDING_SLOW_TRANSFER:
    case FINDING_BELOW_EXPECTED:
        fprintf(out, "what the GPUs reach: nccl-tests (e.g. all_reduce_perf -b %s -e %s) on the same nodes; "
                "NCCL's choices: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING", size, size);
        break;
    case FINDING_OS:
        fputs("what ran instead: nccltap run --lttng (the kernel traced too); give its threads their own cores "
              "(taskset, numactl), and see /proc/interrupts", out);
        print_on_host(f, out);
        break;
    }
}

char *finding_next_step(const struct finding *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    print_next_step(f, m);
    fclose(m);
    return buf;
}

/* One finding, no newline: the line's evidence, then where to look. */
static void print_finding(const struct finding *f, const char *sep, FILE *out)
{
    fprintf(out, "%s ", kind_names[f->kind]);
    switch (f->kind) {
    case FINDING_MISMATCH:
        print_mismatch_finding(f, out);
        break;
    case FINDING_SETTINGS:
        print_settings_finding(f, out);
        break;
    case FINDING_HANG:
        print_hang_finding(f, out);
        break;
    case FINDING_STALL:
        print_stall_finding(f, out);
        break;
    case FINDING_STRAGGLER:
        print_straggler_finding(f, sep, out);
        print_straggler_os(f, sep, out);
        break;
    case FINDING_OS:
        print_os_finding(f, out);
        print_os_worst(f, sep, out);
        break;
    default:
        print_slow_finding(f, out);
    }
    fprintf(out, "; see %s", section_titles[f->section]);
}

/* What was checked, found healthy. */
static void print_healthy(const struct findings *fs, FILE *out)
{
    char c[32], p[32];
    if (!fs->records) {
        fputs("  None: no hang; no per-op records to look for stragglers or slow transfers in\n"
              "  (NCCLTAP_OPS_MAX_MB=0, or no call timed)\n", out);
        return;
    }
    fprintf(out, "  None: no mismatch, straggler, hang or slow transfer in %s collectives", grouped(fs->collectives, c));
    if (fs->pairs)
        fprintf(out, " and %s send/recv pairs", grouped(fs->pairs, p));
    fputc('\n', out);
}

/* The text's width: a finding's line longer than this (a long host name,
 * large figures) goes on in lines of its own indented by
 * FINDINGS_CONTINUED, deeper than any line of a finding begins, so that
 * a reader (or a script: join each such line to the one before) can
 * tell them apart. */
#define FINDINGS_COLUMNS 120
#define FINDINGS_CONTINUED 6

/* text[0..n), lines ending in '\n', to out with each line past
 * FINDINGS_COLUMNS broken at its last space within them, the rest
 * indented FINDINGS_CONTINUED. */
static void print_wrapped(const char *text, size_t n, FILE *out)
{
    const char *end = text + n;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        size_t width = FINDINGS_COLUMNS;
        for (const char *p = line; p < stop;) {
            const char *cut = stop;
            if ((size_t)(stop - p) > width) {
                cut = p + width;
                while (cut > p && *cut != ' ')
                    cut--;
                if (cut <= p + FINDINGS_CONTINUED) {  /* one word wider than the line: left whole */
                    cut = memchr(p + width, ' ', (size_t)(stop - p - width));
                    cut = cut ? cut : stop;
                }
            }
            fwrite(p, 1, (size_t)(cut - p), out);
            fputc('\n', out);
            p = cut;
            if (p < stop)  /* the one space broken at, so that a reader joining with one gets the line back */
                p++;
            if (p < stop) {
                fprintf(out, "%*s", FINDINGS_CONTINUED, "");
                width = FINDINGS_COLUMNS - FINDINGS_CONTINUED;
            }
        }
        line = stop + (nl != NULL);
    }
}

int print_findings(const struct report_summary *s, FILE *out)
{
    const struct findings *fs = &s->findings;
    fputs("Findings", out);
    fputs(fs->n ? " (worst first; the sections below hold the evidence)\n" : "\n", out);
    if (!fs->n)
        print_healthy(fs, out);
    for (size_t i = 0; i < fs->n; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            return -1;
        fputs("  ", m);
        print_finding(&fs->v[i], "\n    ", m);
        fputs("\n    next: ", m);
        print_next_step(&fs->v[i], m);
        fputc('\n', m);
        if (fclose(m) != 0) {
            free(buf);
            return -1;
        }
        print_wrapped(buf, len, out);
        free(buf);
    }
    return fs->n ? 1 : 0;
}

char *findings_healthy_text(const struct report_summary *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    print_healthy(&s->findings, m);
    fclose(m);
    size_t indent = strspn(buf, " ");
    memmove(buf, buf + indent, len - indent + 1);
    return buf;
}

const char *finding_key(const struct finding *f)
{
    return kind_keys[f->kind];
}

char *finding_line(const struct finding *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    print_finding(f, "; ", m);
    fclose(m);
    return buf;
}

static json_t *finding_json(const struct finding *f)
{
    char comm[17];
    snprintf(comm, sizeof comm, "%016" PRIx64, f->comm);
    json_t *o = json_pack("{s:s, s:s, s:f}", "kind", kind_keys[f->kind], "section", section_keys[f->section],
                          "cost_us", f->cost_us);
    json_object_set_new(o, "rank", f->rank >= 0 ? json_integer(f->rank) : json_null());
    json_object_set_new(o, "host", f->file ? json_string(f->file->host) : json_null());
    json_object_set_new(o, "pid", f->file ? json_integer(f->file->pid) : json_null());
    if (f->kind == FINDING_SLOW_LINK || f->kind == FINDING_BELOW_EXPECTED || f->kind == FINDING_SLOW_TRANSFER)
        json_object_set_new(o, "peer", f->peer >= 0 ? json_integer(f->peer) : json_null());
    json_object_set_new(o, "comm", f->comm ? json_string(comm) : json_null());
    json_object_set_new(o, "op", f->op ? json_string(f->op) : json_null());
    if (f->kind == FINDING_HANG || f->kind == FINDING_STALL || f->kind == FINDING_STRAGGLER ||
        f->kind == FINDING_MISMATCH)
        json_object_set_new(o, "seq", json_integer((json_int_t)f->seq));
    if ((f->kind == FINDING_STRAGGLER || f->kind == FINDING_MISMATCH) && f->replay)  /* an execution of the captured call seq */
        json_object_set_new(o, "replay", json_integer((json_int_t)f->replay));
    if (f->bytes)
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_t *e = json_object();
    switch (f->kind) {
    case FINDING_MISMATCH: {
        json_t *sides = json_array();
        for (size_t i = 0; i < f->mismatch->nsides; i++)
            json_array_append_new(sides, mismatch_side_json(&f->mismatch->sides[i]));
        json_object_set_new(e, "sides", sides);  /* the most common first */
        json_object_set_new(e, "majority", json_boolean(f->mismatch->majority));
        json_object_set_new(e, "instances", json_integer((json_int_t)f->count));
        break;
    }
    case FINDING_SETTINGS:
        json_object_set_new(e, "setting", setting_diff_json(f->setting));
        json_object_set_new(e, "differing", json_integer((json_int_t)f->count));
        json_object_set_new(e, "more_comms", json_integer((json_int_t)f->of));
        break;
    case FINDING_STALL:
        json_object_set_new(e, "took_s", json_real(f->took_s));
        /* a stall's evidence is a hang's, resolved */
        __attribute__((fallthrough));
    case FINDING_HANG: {
        json_t *w = json_array(), *m = json_array();
        for (size_t i = 0; i < f->nwaiting; i++)
            json_array_append_new(w, json_integer(f->waiting[i]));
        for (size_t i = 0; i < f->nmissing; i++)
            json_array_append_new(m, json_integer(f->missing[i].rank));
        json_object_set_new(e, "waiting_ranks", w);
        json_t *calls = json_array();  /* two or more: the ranks issued different calls there */
        for (size_t i = 0; f->hang && i < f->hang->ncalls; i++) {
            const struct hang_call *c = &f->hang->calls[i];
            json_t *ranks = json_array();
            for (size_t k = 0; k < c->nranks; k++)
                json_array_append_new(ranks, json_integer(c->ranks[k]));
            json_t *call = json_pack("{s:o, s:s, s:I}", "ranks", ranks, "op", c->op, "bytes", (json_int_t)c->bytes);
            json_object_set_new(call, "dtype", c->dtype[0] ? json_string(c->dtype) : json_null());
            json_object_set_new(call, "redop", op_redop_name(c->redop) ? json_string(op_redop_name(c->redop))
                                                                        : json_null());
            json_object_set_new(call, "root", c->root >= 0 ? json_integer(c->root) : json_null());
            json_array_append_new(calls, call);
        }
        json_object_set_new(e, "calls", calls);
        json_object_set_new(e, "mismatch", json_boolean(hang_mismatched(f)));
        json_object_set_new(e, "missing_ranks", m);
        json_object_set_new(e, "untimed", json_boolean(f->untimed));
        json_object_set_new(e, "done_before", f->done_before >= 0 ? json_integer(f->done_before) : json_null());
        json_object_set_new(e, "last_seq", f->nmissing ? json_integer(f->missing[0].last_seq) : json_null());
        json_object_set_new(e, "waited_s", json_real(f->wait_us / 1e6));
        json_object_set_new(e, "site", f->site && f->site->nframes ? site_frame_json(&f->site->frames[0])
                                                                    : json_null());
        break;
    }
    case FINDING_STRAGGLER:
        json_object_set_new(e, "last", json_integer((json_int_t)f->count));
        json_object_set_new(e, "instances", json_integer((json_int_t)f->of));
        json_object_set_new(e, "wait_us_mean", json_real(f->wait_us));
        json_object_set_new(e, "others_wait_us", json_real(f->cost_us));
        json_object_set_new(e, "nccl_time_share", isnan(f->share) ? json_null() : json_real(f->share));
        json_object_set_new(e, "measured", json_integer((json_int_t)f->measured));
        json_object_set_new(e, "calls", json_integer((json_int_t)f->calls));
        json_object_set_new(e, "gap_before_late_us", json_real(f->gap_late_us));
        json_object_set_new(e, "gap_before_others_us", json_real(f->gap_other_us));
        json_object_set_new(e, "descheduled_late_us", f->late_os_us > 0.0 ? json_real(f->late_os_us) : json_null());
        json_object_set_new(e, "descheduled_late_share",
                            f->late_os_us > 0.0 ? json_real(f->late_os_share) : json_null());
        break;
    case FINDING_OS:
        json_object_set_new(e, "explained_wait_us", json_real(f->wait_us));
        json_object_set_new(e, "nccl_time_share", json_real(f->share));
        json_object_set_new(e, "preempted_by", f->by ? json_string(f->by) : json_null());
        json_object_set_new(e, "worst_op", f->op ? json_string(f->op) : json_null());
        json_object_set_new(e, "worst_seq", json_integer((json_int_t)f->seq));
        if (f->replay)  /* an execution of the captured call worst_seq */
            json_object_set_new(e, "worst_replay", json_integer((json_int_t)f->replay));
        json_object_set_new(e, "worst_offcpu_us", json_real(f->offcpu_us));
        json_object_set_new(e, "worst_preempted_us", json_real(f->preempted_us));
        break;
    default:
        json_object_set_new(e, "busbw_gbs", json_real(f->busbw_gbs));
        json_object_set_new(e, "reference_busbw_gbs", json_real(f->reference_gbs));
        json_object_set_new(e, "slow", json_integer((json_int_t)f->count));
        if (!(f->kind == FINDING_SLOW_LINK && f->peer < 0))
            json_object_set_new(e, "instances", json_integer((json_int_t)f->of));
    }
    json_object_set_new(o, "evidence", e);
    char *line = finding_line(f), *next = finding_next_step(f);
    json_object_set_new(o, "text", line ? json_string(line) : json_null());
    json_object_set_new(o, "next_step", next ? json_string(next) : json_null());
    free(line);
    free(next);
    return o;
}

json_t *findings_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->findings.n; i++)
        json_array_append_new(a, finding_json(&s->findings.v[i]));
    return a;
}

json_t *findings_checked_json(const struct report_summary *s)
{
    const struct findings *fs = &s->findings;
    json_t *o = json_pack("{s:b, s:I, s:I, s:I}", "per_op_records", fs->records,
                     "collectives", (json_int_t)fs->collectives, "pairs", (json_int_t)fs->pairs,
                     "compared_for_mismatch", (json_int_t)fs->compared);
    json_object_set_new(o, "settings_comms", json_integer((json_int_t)fs->settings_comms));
    return o;
}

int report_print_findings(const struct report_summary *s, bool json, FILE *out)
{
    int found = s->findings.n ? 1 : 0;
    if (json) {
        json_t *doc = json_pack("{s:s, s:o, s:o}", "format", REPORT_JSON_FORMAT, "findings", findings_json(s),
                                "checked", findings_checked_json(s));
        int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(doc);
        fputc('\n', out);
        if (rc != 0)
            return -1;
    } else {
        print_findings(s, out);
    }
    return fflush(out) == 0 && !ferror(out) ? found : -1;
}
