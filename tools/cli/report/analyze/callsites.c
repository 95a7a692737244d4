#include "callsites.h"
#include "merge.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One site's calls of one row, in one process. */
struct entry {
    const struct rank_file *file;
    const struct callsite *site;
    const struct site_row *row;
};

int callsite_cmp_frames(const struct callsite *a, const struct callsite *b)
{
    if (a->nframes != b->nframes)
        return a->nframes < b->nframes ? -1 : 1;
    for (size_t k = 0; k < a->nframes; k++) {
        const struct site_frame *x = &a->frames[k], *y = &b->frames[k];
        if (x->python != y->python)
            return x->python ? -1 : 1;
        if (x->python) { /* no address: its file, line and function */
            int c = strcmp(x->file, y->file);
            if (!c && x->line != y->line)
                c = x->line < y->line ? -1 : 1;
            if (!c)
                c = strcmp(x->function, y->function);
            if (c)
                return c;
            continue;
        }
        int c = strcmp(x->library, y->library);
        if (c)
            return c;
        uint64_t u = x->library[0] ? x->offset : x->addr, v = y->library[0] ? y->offset : y->addr;
        if (u != v)
            return u < v ? -1 : 1;
    }
    return 0;
}

/* The same site: the same frames issuing the same op. */
static int cmp_site(const struct entry *a, const struct entry *b)
{
    int c = callsite_cmp_frames(a->site, b->site);
    return c ? c : strcmp(a->row->op, b->row->op);
}

/* By site, then process, so that a site's processes can be counted. */
static int cmp_entry(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    int c = cmp_site(a, b);
    return c ? c : (a->file > b->file) - (a->file < b->file);
}

/* The file's statistics row of a site row: the same key. */
static const struct op_row *row_of(const struct rank_file *f, const struct site_row *s)
{
    for (size_t i = 0; i < f->nops; i++) {
        const struct op_row *o = &f->ops[i];
        if (o->comm == s->comm && o->op == s->op && o->dtype == s->dtype && o->size_class == s->size_class)
            return o;
    }
    return NULL;
}

/* NCCL time of calls there: their own mean time when some were timed,
 * else their row's (in auto most calls are counted, not timed), shared
 * among the ops of a group as rank_file_nccl_share does. */
static double entry_time_ns(const struct entry *e)
{
    const struct op_row *o = row_of(e->file, e->row);
    /* A row with no steady timed call has no mean (NaN). */
    double mean = e->row->timed ? (double)e->row->t_sum / (double)e->row->timed
                  : o && !isnan(o->us_mean) ? o->us_mean * 1e3 : 0;
    double grouped = o && o->grouped > 1.0 ? o->grouped : 1.0;
    return mean * (double)e->row->calls / grouped;
}

static int cmp_summary(const struct site_summary *a, const struct site_summary *b)
{
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    if (a->calls != b->calls)
        return a->calls > b->calls ? -1 : 1;
    int c = callsite_cmp_frames(a->first, b->first);
    return c ? c : strcmp(a->op, b->op);
}

static int cmp_use(const void *pa, const void *pb)
{
    const struct site_use *a = pa, *b = pb;
    int c = strcmp(a->comm, b->comm);
    if (!c)
        c = strcmp(a->op, b->op);
    if (!c)
        c = strcmp(a->dtype, b->dtype);
    if (!c && a->size_class != b->size_class)
        c = a->size_class < b->size_class ? -1 : 1;
    if (!c && a->site != b->site)
        c = a->site < b->site ? -1 : 1;
    return c;
}

void report_callsites(const struct report *r, struct callsite_summary *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    double total_ns = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        if (f->callsite_depth > out->depth)
            out->depth = f->callsite_depth;
        out->python_unread += f->python_unread;
        for (size_t j = 0; j < f->nsites; j++)
            n += f->sites[j].nrows;
        for (size_t j = 0; j < f->nops; j++) {
            /* No steady timed call: no mean, and no time at its sites either. */
            total_ns += op_row_time_us(&f->ops[j]) * 1e3;
        }
    }
    if (n == 0)
        return;
    struct entry *e = xcalloc(n, sizeof *e);
    size_t k = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nsites; j++)
            for (size_t m = 0; m < r->files[i].sites[j].nrows; m++)
                e[k++] = (struct entry){&r->files[i], &r->files[i].sites[j], &r->files[i].sites[j].rows[m]};
    qsort(e, n, sizeof *e, cmp_entry);

    /* Adjacent entries with the same frames and op are one site. */
    struct site_summary *sites = xcalloc(n, sizeof *sites);
    size_t nsites = 0, *site_of = xcalloc(n, sizeof *site_of);
    for (size_t i = 0; i < n; i++) {
        bool new_site = i == 0 || cmp_site(&e[i - 1], &e[i]) != 0;
        if (new_site)
            sites[nsites++] = (struct site_summary){.first = e[i].site, .op = e[i].row->op};
        struct site_summary *s = &sites[nsites - 1];
        s->nprocs += new_site || e[i - 1].file != e[i].file;
        s->calls += e[i].row->calls;
        s->timed += e[i].row->timed;
        s->t_sum += e[i].row->t_sum;
        s->bytes_total += e[i].row->bytes_total;
        s->time_ns += entry_time_ns(&e[i]);
        s->busbw_gbs += e[i].row->bw_busbytes; /* divided by t_sum below */
        site_of[i] = nsites - 1;
    }
    for (size_t i = 0; i < nsites; i++) {
        struct site_summary *s = &sites[i];
        s->busbw_gbs = s->t_sum ? s->busbw_gbs / (double)s->t_sum : 0; /* bytes per ns = GB/s */
        s->share = total_ns > 0 ? s->time_ns / total_ns : 0;
    }

    /* Rank the sites (insertion into order: a report has few), and say
     * where each entry's site went. */
    size_t *rank_of = xcalloc(nsites, sizeof *rank_of);
    out->sites = xcalloc(nsites, sizeof *out->sites);
    for (size_t i = 0; i < nsites; i++) {
        size_t at = i;
        while (at > 0 && cmp_summary(&sites[i], &out->sites[at - 1]) < 0) {
            out->sites[at] = out->sites[at - 1];
            at--;
        }
        out->sites[at] = sites[i];
        for (size_t j = 0; j < i; j++)
            rank_of[j] += rank_of[j] >= at;
        rank_of[i] = at;
    }
    out->nsites = nsites;
    out->uses = xcalloc(n, sizeof *out->uses);
    for (size_t i = 0; i < n; i++) {
        const struct site_row *row = e[i].row;
        out->uses[i] = (struct site_use){row->comm, row->op, row->dtype, row->size_class, rank_of[site_of[i]]};
    }
    qsort(out->uses, n, sizeof *out->uses, cmp_use);
    for (size_t i = 0; i < n; i++) /* drop repeats */
        if (out->nuses == 0 || cmp_use(&out->uses[out->nuses - 1], &out->uses[i]) != 0)
            out->uses[out->nuses++] = out->uses[i];
    free(rank_of);
    free(sites);
    free(site_of);
    free(e);
}

void callsite_summary_free(struct callsite_summary *s)
{
    free(s->sites);
    free(s->uses);
    memset(s, 0, sizeof *s);
}

