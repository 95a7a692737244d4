/* `nccltap report`'s option values against the loaded run: see
 * check_options.h. Single-threaded, as the command is. */
#include "check_options.h"
#include "escape.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names listed in a message before "... (N in all)": a run of a thousand
 * communicators is not printed whole. */
#define LISTED_MAX 20

/* A set of names, sorted and without repeats once finished. */
struct names {
    const char **v;
    size_t n, cap;
};

static void names_add(struct names *s, const char *name)
{
    if (!name || !name[0])
        return;
    s->v = xgrow(s->v, &s->cap, s->n, sizeof *s->v, 16);
    s->v[s->n++] = name;
}

static void names_finish(struct names *s)
{
    qsort(s->v, s->n, sizeof *s->v, cmp_cstr);
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!kept || strcmp(s->v[kept - 1], s->v[i]) != 0)
            s->v[kept++] = s->v[i];
    s->n = kept;
}

/* "a, b, c" or "a, b, ... (N in all)" on stderr; "none" when empty. */
static void names_print(const struct names *s)
{
    if (!s->n)
        fputs("none", stderr);
    for (size_t i = 0; i < s->n && i < LISTED_MAX; i++) {
        char buf[SHOWN_MAX];
        fprintf(stderr, "%s%s", i ? ", " : "", shown(s->v[i], buf));
    }
    if (s->n > LISTED_MAX)
        fprintf(stderr, ", ... (%zu in all)", s->n);
}

static bool op_known(const struct report *r, const char *op, struct names *all)
{
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nops; j++)
            names_add(all, r->files[i].ops[j].op);
    names_finish(all);
    for (size_t i = 0; i < all->n; i++)
        if (strcasecmp(all->v[i], op) == 0)
            return true;
    return false;
}

/* A communicator is named by its id or, where it has one, its name (as
 * summary.c filters them). */
static bool comm_known(const struct report *r, const char *comm, struct names *all)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        for (size_t j = 0; j < f->ncomms; j++) {
            names_add(all, f->comms[j].id);
            names_add(all, f->comms[j].name);
        }
        for (size_t j = 0; j < f->nops; j++) {
            names_add(all, f->ops[j].comm);
            names_add(all, f->ops[j].comm_name);
        }
    }
    names_finish(all);
    for (size_t i = 0; i < all->n; i++)
        if (strcmp(all->v[i], comm) == 0)
            return true;
    return false;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The ranks the processes hold, sorted, without repeats. */
static int *run_ranks(const struct report *r, size_t *n)
{
    int *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nranks; j++) {
            v = xgrow(v, &cap, *n, sizeof *v, 16);
            v[(*n)++] = r->files[i].ranks[j];
        }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_int);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (!kept || v[kept - 1] != v[i])
            v[kept++] = v[i];
    *n = kept;
    return v;
}

/* "0-3,8" on stderr; "none" when empty. */
static void ranks_print(const int *v, size_t n)
{
    if (!n)
        fputs("none", stderr);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        fprintf(stderr, j == i ? "%s%d" : "%s%d-%d", i ? "," : "", v[i], v[j]);
        i = j + 1;
    }
}

/* The first chosen rank no process holds, or -1. */
static int rank_unknown(const int *have, size_t nhave, const struct chosen *c)
{
    for (size_t i = 0; i < c->nranks; i++)
        if (!bsearch(&c->ranks[i], have, nhave, sizeof *have, cmp_int))
            return c->ranks[i];
    return -1;
}

bool report_check_chosen(const char *argv0, const struct report *r, const struct chosen *c)
{
    struct names all = { 0 };
    char buf[SHOWN_MAX];
    bool ok = true;
    if (c->op && !op_known(r, c->op, &all)) {
        fprintf(stderr, "%s: --op %s: the run has no such op; its ops are ", argv0, shown(c->op, buf));
        names_print(&all);
        ok = false;
    }
    all.n = 0;
    if (ok && c->comm && !comm_known(r, c->comm, &all)) {
        fprintf(stderr, "%s: --comm %s: the run has no such communicator; its ids and names are ", argv0,
                shown(c->comm, buf));
        names_print(&all);
        ok = false;
    }
    free(all.v);
    if (ok && c->ranks) {
        size_t n;
        int *have = run_ranks(r, &n);
        int unknown = rank_unknown(have, n, c);
        if (unknown >= 0) {
            fprintf(stderr, "%s: --ranks: no process of the run holds rank %d; its ranks are ", argv0, unknown);
            ranks_print(have, n);
            ok = false;
        }
        free(have);
    }
    if (!ok)
        fputc('\n', stderr);
    return ok;
}

/* A process's time in the reference process's clock (crossrank.c's
 * offsets), as the timeline aligns it. */
static int64_t aligned(const struct rank_file *f, uint64_t ns) { return (int64_t)ns - f->clock_offset_ns; }

bool report_check_window(const char *argv0, const struct report *r, double from_s)
{
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nevents; j++) {
            const struct op_event *e = &r->files[i].events[j];
            uint64_t begin = e->start_ns && e->start_ns < e->enqueue_ns ? e->start_ns : e->enqueue_ns;
            uint64_t end = e->end_ns > e->enqueue_ns ? e->end_ns : e->enqueue_ns;
            if (aligned(&r->files[i], begin) < first)
                first = aligned(&r->files[i], begin);
            if (aligned(&r->files[i], end) > last)
                last = aligned(&r->files[i], end);
        }
    double span_s = first <= last ? (double)(last - first) / 1e9 : 0;
    if (from_s <= 0 || from_s < span_s)
        return true;
    if (first > last)
        fprintf(stderr, "%s: --from %g: the run has no per-op records, so no time to choose from "
                "(--from and --to take seconds from its first op)\n", argv0, from_s);
    else
        fprintf(stderr, "%s: --from %g is past the run's end: its ops span 0 to %.6f s from its first op\n",
                argv0, from_s, span_s);
    return false;
}
