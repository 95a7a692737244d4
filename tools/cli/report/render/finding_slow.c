/* The SLOW LINK, SLOW and BELOW EXPECTED findings' words, next steps and
 * JSON evidence: transfers below the job's median or the busbw expected
 * (rows of finding_kinds.c). */
#include "finding_slow.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

void finding_slow_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    char op[SHOWN_MAX], size[16];
    if (f->op)
        shown(f->op, op);
    else
        snprintf(op, sizeof op, "send/recv");
    human_bytes((double)f->bytes, size);
    if (f->kind == FINDING_SLOW_LINK && f->transfer_us > 0.0) {
        fprintf(out, "at rank %d", f->rank);
        finding_process(f->file, out);
        fprintf(out, ": its collective transfers on comm %016" PRIx64 " take %.1f us vs %.1f us on the other ranks",
                f->comm, f->transfer_us, f->others_us);
        return;
    }
    if (f->kind == FINDING_SLOW_LINK && f->suspect) {
        fprintf(out, "at rank %d", f->rank);
        finding_process(f->file, out);
        fprintf(out, ": in all %zu slow send/recv pairs on comm %016" PRIx64 ", the slowest %s %s %.2f GB/s vs "
                "%.2f GB/s %s", f->count, f->comm, op, size, f->busbw_gbs, f->reference_gbs,
                f->expected ? "expected" : "for the job");
        return;
    }
    if (f->kind == FINDING_SLOW_LINK && f->peer < 0) {
        fprintf(out, "at rank %d", f->rank);
        finding_process(f->file, out);
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
    fprintf(out, " on comm %016" PRIx64 ", %s of %s slow", f->comm, finding_grouped(f->count, n), finding_grouped(f->of, of));
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

void finding_slow_evidence(const struct finding *f, json_t *e)
{
    json_object_set_new(e, "busbw_gbs", json_real(f->busbw_gbs));
    json_object_set_new(e, "reference_busbw_gbs", json_real(f->reference_gbs));
    json_object_set_new(e, "slow", json_integer((json_int_t)f->count));
    if (!(f->kind == FINDING_SLOW_LINK && f->peer < 0))
        json_object_set_new(e, "instances", json_integer((json_int_t)f->of));
}
