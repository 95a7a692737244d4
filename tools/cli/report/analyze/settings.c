/* Settings drift (settings.h): per communicator, its ranks' NCCL_*
 * variables, NCCL's effective parameters and config fields, grouped by
 * value; those with two values or more. */
#include "settings.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* One rank of a communicator, as a file lists it. */
struct member {
    uint64_t comm;
    int rank;
    const struct rank_file *file;
    const struct comm_entry *entry;
};

static int cmp_member(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static struct member *members_of(const struct report *r, size_t *n)
{
    size_t cap = 0;
    struct member *v = NULL;
    *n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].ncomms; k++) {
            const struct comm_entry *c = &r->files[i].comms[k];
            if (c->rank < 0 || c->nranks < 2 || !strcmp(c->origin, "overflow"))
                continue;
            if (*n == cap)
                v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            v[(*n)++] = (struct member){ strtoull(c->id, NULL, 16), c->rank, &r->files[i], c };
        }
    if (*n)  /* qsort wants an array, even of nothing */
        qsort(v, *n, sizeof *v, cmp_member);
    /* A rank once: its first entry (a process listing it twice is damaged). */
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (!kept || cmp_member(&v[kept - 1], &v[i]) != 0)
            v[kept++] = v[i];
    *n = kept;
    return v;
}

/* What one member has for the setting being compared. */
struct seen {
    bool set;
    uint64_t hash;
    int number;
    const char *text;
};

static bool same_seen(const struct seen *a, const struct seen *b)
{
    if (a->set != b->set)
        return false;
    if (!a->set)
        return true;
    return a->hash == b->hash && a->number == b->number &&
           (a->text == b->text || (a->text && b->text && !strcmp(a->text, b->text)));
}

static int cmp_value(const void *a, const void *b)
{
    const struct setting_value *x = a, *y = b;
    if (x->nranks != y->nranks)
        return x->nranks > y->nranks ? -1 : 1;
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

/* Each value's host_apart: the one host all its members are on, where no
 * member of another value is. Host names are interned: equal pointers. */
static void host_apart(struct setting_value *vals, size_t nvals, const struct member *m, const size_t *which,
                       size_t n)
{
    for (size_t j = 0; j < nvals; j++) {
        const char *host = NULL;
        bool apart = true;
        for (size_t i = 0; i < n && apart; i++) {
            if (which[i] != j)
                continue;
            if (!host)
                host = m[i].file->host;
            apart = m[i].file->host == host;
        }
        for (size_t i = 0; i < n && apart; i++)
            apart = which[i] == j || m[i].file->host != host;
        vals[j].host_apart = apart ? host : NULL;
    }
}

/* Groups m[0..n)'s values seen[0..n); adds a diff when there are two or more. */
static void judge(struct settings_drift *out, const struct member *m, const struct seen *seen, size_t n, bool env,
                  bool effective, const char *name)
{
    struct setting_value *vals = xcalloc(n, sizeof *vals);
    size_t *rep = xmalloc(n * sizeof *rep), nvals = 0;
    size_t *which = xmalloc(n * sizeof *which);  /* each member's value */
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < nvals && !same_seen(&seen[rep[j]], &seen[i]))
            j++;
        which[i] = j;
        if (j == nvals) {
            rep[nvals] = i;
            vals[nvals++] = (struct setting_value){ .set = seen[i].set, .hash = seen[i].hash,
                                                    .number = seen[i].number, .text = seen[i].text,
                                                    .ranks = xmalloc(n * sizeof(int)), .file = m[i].file };
        }
        vals[j].ranks[vals[j].nranks++] = m[i].rank;
    }
    free(rep);
    host_apart(vals, nvals, m, which, n);
    free(which);
    if (nvals < 2) {
        for (size_t j = 0; j < nvals; j++)
            free(vals[j].ranks);
        free(vals);
        return;
    }
    qsort(vals, nvals, sizeof *vals, cmp_value);
    out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
    out->v[out->n++] = (struct setting_diff){ m[0].comm, env, effective, name, vals, nvals };
}

/* NCCL's logging: not what it does. */
static bool ignored(const char *name)
{
    return !strcmp(name, "NCCL_DEBUG") || !strcmp(name, "NCCL_DEBUG_SUBSYS") || !strcmp(name, "NCCL_DEBUG_FILE");
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The list of names and hashes compared: the environment's, or NCCL's
 * effective parameters. */
struct vars {
    const struct env_var *v;
    size_t n;
};

static struct vars vars_of(const struct rank_file *f, bool effective)
{
    return effective ? (struct vars){ f->params, f->nparams } : (struct vars){ f->env, f->nenv };
}

static const struct env_var *var_find(struct vars l, const char *name)
{
    size_t lo = 0, hi = l.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(l.v[mid].name, name);
        if (!c)
            return &l.v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Whether out->v[from..] already holds the variable `name` of `comm`. */
static bool said(const struct settings_drift *out, size_t from, uint64_t comm, const char *name)
{
    for (size_t i = from; i < out->n; i++)
        if (out->v[i].comm == comm && out->v[i].env && !strcmp(out->v[i].name, name))
            return true;
    return false;
}

/* The communicator m[0..n)'s NCCL_* variables, or NCCL's effective
 * parameters, by name (a parameter whose variable differs already, from
 * out->v[from] on, is not said again). Returns whether two of its ranks
 * said theirs. */
static bool compare_vars(struct settings_drift *out, size_t from, const struct member *all, size_t n,
                         struct seen *seen, bool effective)
{
    struct member *m = xmalloc(n * sizeof *m);
    size_t k = 0, nnames = 0;
    for (size_t i = 0; i < n; i++)
        if (effective ? all[i].file->params_read : all[i].file->env_read) {
            m[k++] = all[i];
            nnames += vars_of(all[i].file, effective).n;
        }
    const char **names = xmalloc((nnames ? nnames : 1) * sizeof *names);
    nnames = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < vars_of(m[i].file, effective).n; j++)
            names[nnames++] = vars_of(m[i].file, effective).v[j].name;
    qsort(names, nnames, sizeof *names, cmp_name);
    for (size_t i = 0; k >= 2 && i < nnames; i++) {
        if ((i && !strcmp(names[i], names[i - 1])) || ignored(names[i]) ||
            (effective && said(out, from, m[0].comm, names[i])))
            continue;
        for (size_t j = 0; j < k; j++) {
            const struct env_var *v = var_find(vars_of(m[j].file, effective), names[i]);
            seen[j] = (struct seen){ .set = v != NULL, .hash = v ? v->hash : 0 };
        }
        judge(out, m, seen, k, true, effective, names[i]);
    }
    free(names);
    free(m);
    return k >= 2;
}

/* The config fields compared, by their names in the rank file. */
static const struct {
    const char *name;
    size_t offset;
} config_fields[] = {
    { "blocking", offsetof(struct comm_config, blocking) },
    { "cga_cluster_size", offsetof(struct comm_config, cga_cluster_size) },
    { "min_ctas", offsetof(struct comm_config, min_ctas) },
    { "max_ctas", offsetof(struct comm_config, max_ctas) },
    { "split_share", offsetof(struct comm_config, split_share) },
    { "traffic_class", offsetof(struct comm_config, traffic_class) },
};

/* The communicator all[0..n)'s config fields, over the ranks whose files
 * recorded them (config_read). */
static void compare_config(struct settings_drift *out, const struct member *all, size_t n, struct seen *seen)
{
    struct member *m = xmalloc((n ? n : 1) * sizeof *m);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].file->config_read)
            m[k++] = all[i];
    n = k;
    if (n < 2) {
        free(m);
        return;
    }
    for (size_t f = 0; f < sizeof config_fields / sizeof config_fields[0]; f++) {
        for (size_t i = 0; i < n; i++) {
            const struct comm_config *c = &m[i].entry->config;
            int v = *(const int *)(const void *)((const char *)c + config_fields[f].offset);
            seen[i] = (struct seen){ .set = c->version && v != COMM_CONFIG_UNSET, .number = v };
        }
        judge(out, m, seen, n, false, false, config_fields[f].name);
    }
    for (size_t i = 0; i < n; i++) {
        const struct comm_config *c = &m[i].entry->config;
        seen[i] = (struct seen){ .set = c->version && c->net_name && c->net_name[0], .text = c->net_name };
    }
    judge(out, m, seen, n, false, false, "net_name");
    free(m);
}

void settings_analyze(const struct report *r, struct settings_drift *out)
{
    memset(out, 0, sizeof *out);
    size_t n;
    struct member *m = members_of(r, &n);
    struct seen *seen = xmalloc((n ? n : 1) * sizeof *seen);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && m[j].comm == m[i].comm)
            j++;
        if (j - i >= 2) {
            size_t from = out->n;
            bool env = compare_vars(out, from, m + i, j - i, seen, false);
            bool params = compare_vars(out, from, m + i, j - i, seen, true);
            out->comms += env || params;
            compare_config(out, m + i, j - i, seen);
        }
        i = j;
    }
    free(seen);
    free(m);
}

void settings_drift_free(struct settings_drift *d)
{
    for (size_t i = 0; i < d->n; i++) {
        for (size_t k = 0; k < d->v[i].nvalues; k++)
            free(d->v[i].values[k].ranks);
        free(d->v[i].values);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}
