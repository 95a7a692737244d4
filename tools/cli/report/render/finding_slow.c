/* The SLOW LINK, SLOW and BELOW EXPECTED findings' words, next steps and
 * JSON evidence: transfers below the job's median or the busbw expected
 * (rows of finding_kinds.c). */
#include "finding_slow.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <stdio.h>

/* "at rank 1 (host h, pid p): " */
static void print_at_rank(const struct finding *f, FILE *out)
{
    fprintf(out, "at rank %d", f->rank);
    finding_process(f->file, out);
    fputs(": ", out);
}

/* A transfer's slow instances (SLOW_INSTANCES): a pair, a communicator's
 * collective, or either against the busbw expected. */
static void print_slow_instances(const struct finding *f, const char *op, const char *size, FILE *out)
{
    const struct slow_evidence *e = &f->evidence.slow;
    if (f->kind == FINDING_SLOW_LINK)
        fprintf(out, "rank %d <-> rank %d: %s %s %.2f GB/s vs %.2f GB/s for the other pairs", f->rank, f->peer,
                op, size, e->busbw_gbs, e->reference_gbs);
    else if (f->kind == FINDING_SLOW_TRANSFER)
        fprintf(out, "%s %s on ranks 0-%d: %.2f GB/s vs %.2f GB/s for the job", op, size, e->nranks - 1,
                e->busbw_gbs, e->reference_gbs);
    else if (f->peer >= 0)
        fprintf(out, "%s %s rank %d -> rank %d: %.2f GB/s vs %.2f expected", op, size, f->rank,
                f->peer, e->busbw_gbs, e->reference_gbs);
    else
        fprintf(out, "%s %s %.2f GB/s vs %.2f expected", op, size, e->busbw_gbs, e->reference_gbs);
    char n[32], of[32];
    fprintf(out, " on comm %016" PRIx64 ", %s of %s slow", f->comm, finding_grouped(e->slow, n),
            finding_grouped(e->instances, of));
}

void finding_slow_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    const struct slow_evidence *e = &f->evidence.slow;
    char op[SHOWN_MAX], size[16];
    if (f->op)
        shown(f->op, op);
    else
        snprintf(op, sizeof op, "send/recv");
    human_bytes((double)f->bytes, size);
    switch (e->basis) {
    case SLOW_RANK_TRANSFERS:
        print_at_rank(f, out);
        fprintf(out, "its collective transfers on comm %016" PRIx64 " take %.1f us vs %.1f us on the other ranks",
                f->comm, e->transfer_us, e->others_us);
        break;
    case SLOW_SUSPECT:
        print_at_rank(f, out);
        fprintf(out, "in all %zu slow send/recv pairs on comm %016" PRIx64 ", the slowest %s %s %.2f GB/s vs "
                "%.2f GB/s %s", e->slow, f->comm, op, size, e->busbw_gbs, e->reference_gbs,
                e->expected ? "expected" : "for the job");
        break;
    case SLOW_RANK_PAIRS:
        print_at_rank(f, out);
        fprintf(out, "its %zu send/recv pairs on comm %016" PRIx64 " %.2f GB/s vs %.2f GB/s for the pairs "
                "without it", e->slow, f->comm, e->busbw_gbs, e->reference_gbs);
        break;
    case SLOW_PAIR:
        fprintf(out, "rank %d <-> rank %d: %s %s %.2f GB/s vs %.2f GB/s %s on comm %016" PRIx64, f->rank, f->peer,
                op, size, e->busbw_gbs, e->reference_gbs, e->expected ? "expected" : "for the other pairs",
                f->comm);
        break;
    case SLOW_INSTANCES:
        print_slow_instances(f, op, size, out);
        break;
    }
}

/* A slow link seen in collectives has no send/recv matrix to show it. */
const char *finding_slow_link_anchor(const struct finding *f)
{
    return f->evidence.slow.basis == SLOW_RANK_TRANSFERS ? "text-slow" : "links";
}

void finding_slow_link_next(const struct finding *f, FILE *out)
{
    fputs("the link's state: nvidia-smi topo -m; nvidia-smi nvlink --status", out);
    finding_on_host(f, out);
    fputs("; the transport NCCL chose: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH", out);
}

void finding_slow_next(const struct finding *f, FILE *out)
{
    char size[16];
    human_bytes((double)f->bytes, size);
    fprintf(out, "what the GPUs reach: nccl-tests (e.g. all_reduce_perf -b %s -e %s) on the same nodes; "
            "NCCL's choices: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING", size, size);
}

/* "instances" where the finding counts them: a transfer's, and a pair
 * that stands apart (0: it counts pairs, not instances). */
void finding_slow_evidence(const struct finding *f, json_t *j)
{
    const struct slow_evidence *e = &f->evidence.slow;
    json_object_set_new(j, "busbw_gbs", json_real(e->busbw_gbs));
    json_object_set_new(j, "reference_busbw_gbs", json_real(e->reference_gbs));
    json_object_set_new(j, "slow", json_integer((json_int_t)e->slow));
    if (e->basis == SLOW_INSTANCES || e->basis == SLOW_PAIR)
        json_object_set_new(j, "instances", json_integer((json_int_t)e->instances));
}
