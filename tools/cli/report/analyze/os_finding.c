/* OS findings (os_finding.h): a process by what its descheduling before
 * its calls explains of the others' waiting (os_proc.explained_ns). Time
 * lost inside its own calls, while the GPU works on, costs nobody: the OS
 * section shows it, no finding. */
#include "os_finding.h"
#include "finding.h"
#include "merge.h"

#include <math.h>

/* The NCCL time of every process but `file`, us; NaN when one cannot say. */
static double others_nccl_all_us(const struct report *r, const struct rank_file *file)
{
    double sum = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        if (&r->files[i] != file)
            sum += rank_file_nccl_share(&r->files[i]) * r->files[i].wall_s * 1e6;
    return sum;
}

/* Whether `file` is already named a straggler: its lateness and what the
 * OS explains of it are said there (straggler_finding.c). */
static bool named_straggler(const struct findings *f, const struct rank_file *file)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].kind == FINDING_STRAGGLER && f->v[i].file == file)
            return true;
    return false;
}

/* The process's straggler rows' first (its most affected op), and the
 * task that preempted its threads longest in them (*by; NULL: none). */
static const struct os_row *worst_row(const struct os_interference *os, const struct rank_file *file,
                                      const char **by)
{
    uint64_t longest = 0;
    const struct os_row *worst = NULL;
    *by = NULL;
    for (size_t k = 0; k < os->nrows; k++) {
        const struct os_row *w = &os->rows[k];
        if (w->file != file || !w->straggler || w->first_of_kind)
            continue;
        if (!worst)
            worst = w;
        if (w->preempted_by && w->preempted_ns > longest) {
            longest = w->preempted_ns;
            *by = w->preempted_by;
        }
    }
    return worst;
}

void os_findings(const struct finding_sources *in, struct findings *out)
{
    const struct report *r = in->r;
    const struct os_interference *os = in->os;
    for (size_t i = 0; os && i < os->nprocs; i++) {
        const struct os_proc *p = &os->procs[i];
        const struct rank_file *file = p->file;
        double others = others_nccl_all_us(r, file), explained_us = (double)p->explained_ns / 1e3;
        double share = others > 0.0 ? explained_us / others : NAN;
        if (!(share >= FINDING_OS_MIN_SHARE) || named_straggler(out, file))
            continue;
        const char *by;
        const struct os_row *worst = worst_row(os, file, &by);
        if (!worst)
            continue;
        struct finding *v = finding_add(out, FINDING_OS, SECTION_OS_INTERFERENCE);
        v->rank = file->nranks ? file->ranks[0] : -1;
        v->file = file;
        v->cost_us = explained_us;
        v->op = report_name(r, worst->op->op);
        v->seq = worst->op->seq;
        v->replay = op_replay(worst->op);
        v->comm = worst->op->comm;
        v->evidence.os = (struct os_evidence){
            .explained_us = explained_us,
            .share = share > 1.0 ? 1.0 : share,
            .preempted_by = by,
            .offcpu_us = (double)worst->offcpu_ns / 1e3,
            .preempted_us = (double)worst->preempted_ns / 1e3,
            .thread = worst->thread ? worst->thread->comm : NULL,
            .nccl_thread = worst->thread && worst->thread->nccl,
        };
    }
}
