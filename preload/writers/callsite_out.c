#include "writers/callsite_out.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "state/callsite.h"
#include "state/callsite_python.h"
#include "state/comm_registry.h"
#include "base/config.h"
#include "base/json_writer.h"
#include "writers/frame_names.h"
#include "writers/load_map.h"
#include "nccl/nccl_ops.h"
#include "stats/site_stats.h"
#include "stats/stats.h"
#include "writers/tracing.h"

static int by_site(const void *a, const void *b)
{
    const struct tap_site_stat *x = *(const struct tap_site_stat *const *)a;
    const struct tap_site_stat *y = *(const struct tap_site_stat *const *)b;
    return x->site != y->site ? x->site - y->site : (x->row > y->row) - (x->row < y->row);
}

static void write_row(FILE *f, const struct tap_site_stat *s)
{
    char dtype_buf[32];
    const struct tap_stat *row = tap_stats_at(s->row);
    /* The key of the "ops" row, spelled as there. */
    fprintf(f, "{\"comm\": \"%016llx\", \"op\": \"%s\", \"dtype\": \"%s\", \"size_class\": %llu, "
               "\"calls\": %llu, \"bytes_total\": %llu, \"timed\": %llu, \"time_ns\": %llu, \"bw_bytes\": ",
            (unsigned long long)row->comm->id, tap_op_name((enum tap_op)row->op),
            tap_dtype_name(row->dtype, dtype_buf, sizeof dtype_buf),
            row->size_class || row->bytes_total ? 1ull << row->size_class : 0ull, (unsigned long long)s->calls,
            (unsigned long long)s->bytes_total, (unsigned long long)s->timed, (unsigned long long)s->time_sum_ns);
    json_number(f, s->bw_bytes);
    fputs(", \"bw_busbytes\": ", f);
    json_number(f, s->bw_busbytes);
    fputc('}', f);
}

static void write_frames(FILE *f, uint16_t site, unsigned depth, struct tap_module *map, unsigned nmap)
{
    const uintptr_t *frames = site ? tap_site_frames(site) : NULL;
    fputs("\"frames\": [", f);
    for (unsigned k = 0; frames && k < depth && frames[k]; k++) {
        fprintf(f, "%s\"0x%llx\"", k ? ", " : "", (unsigned long long)frames[k]);
        struct tap_module *m = tap_load_map_find(map, nmap, frames[k]);
        if (m)
            m->used = true;
    }
    fputs("]", f);
    /* Names beside them, for a report read where the binaries are not. */
    fputs(", \"symbols\": [", f);
    for (unsigned k = 0; frames && k < depth && frames[k]; k++) {
        fputs(k ? ", " : "", f);
        json_string(f, tap_frame_name(site, k, depth, frames[k], tap_load_map_find(map, nmap, frames[k])));
    }
    fputs("]", f);
    /* The Python lines that made the calls, above the native frames. */
    for (unsigned k = 0; site && k < depth && tap_site_python(site, k); k++) {
        const struct tap_py_frame *p = tap_python_frame(tap_site_python(site, k));
        fputs(k ? ", {\"file\": " : ", \"python\": [{\"file\": ", f);
        json_string(f, p->file);
        fprintf(f, ", \"line\": %d, \"function\": ", p->line);
        json_string(f, p->function);
        fputs(k + 1 < depth && tap_site_python(site, k + 1) ? "}" : "}]", f);
    }
}

static void write_modules(FILE *f, const struct tap_module *map, unsigned nmap)
{
    fputs("  \"modules\": [", f);
    bool first = true;
    for (unsigned i = 0; i < nmap; i++) {
        const struct tap_module *m = &map[i];
        if (!m->used)
            continue;
        fputs(first ? "\n    {\"path\": " : ",\n    {\"path\": ", f);
        json_string(f, m->path);
        fprintf(f, ", \"base\": \"0x%llx\", \"start\": \"0x%llx\", \"end\": \"0x%llx\", \"build_id\": \"%s\"}",
                (unsigned long long)m->base, (unsigned long long)m->start, (unsigned long long)m->end,
                m->build_id);
        first = false;
    }
    fputs(first ? "],\n" : "\n  ],\n", f);
}

void tap_callsites_write_json(FILE *f)
{
    unsigned depth = tap_sites_depth();
    fprintf(f, "  \"callsite_depth\": %u,\n  \"callsite_python_unread\": %llu,\n  \"callsites\": [", depth,
            (unsigned long long)tap_python_unread());
    unsigned n = depth ? tap_site_stats_count() : 0, nmap = 0;
    const struct tap_site_stat **sorted = malloc((n ? n : 1) * sizeof *sorted);
    /* Also the sites with no statistics yet, whose first calls are still on
     * the GPU: a hang at a site's first call names it (hang_file.c). */
    uint16_t *ids = depth ? malloc(TAP_SITE_CAPACITY * sizeof *ids) : NULL;
    unsigned nids = ids ? tap_sites_published(ids, TAP_SITE_CAPACITY) : 0;
    struct tap_module *map = sorted && (n || nids) ? tap_load_map(&nmap) : NULL;
    if (!sorted)
        n = nids = 0;
    for (unsigned i = 0; i < n; i++)
        sorted[i] = tap_site_stats_at(i);
    if (n)
        qsort(sorted, n, sizeof *sorted, by_site);
    /* Both ascending by site: merged. */
    unsigned i = 0, j = 0;
    for (bool any = false; i < n || j < nids; any = true) {
        uint16_t site = i < n && (j == nids || sorted[i]->site <= ids[j]) ? sorted[i]->site : ids[j];
        fprintf(f, "%s\n    {\"id\": %u, ", any ? "]}," : "", site);
        write_frames(f, site, depth, map, nmap);
        fputs(",\n     \"rows\": [", f);
        for (bool first = true; i < n && sorted[i]->site == site; i++, first = false) {
            if (!first)
                fputs(",\n       ", f);
            write_row(f, sorted[i]);
        }
        while (j < nids && ids[j] == site)
            j++;
    }
    fputs(n || nids ? "]}\n  ],\n" : "],\n", f);
    write_modules(f, map, nmap);
    free(map);
    free(sorted);
    free(ids);
}

/* ---- LTTng ---- */

static unsigned traced_upto;   /* site statistics looked at so far */
static uint8_t site_traced[TAP_SITE_CAPACITY + 1];
static uint8_t python_traced[TAP_PY_CAPACITY + 1]; /* python_frame events emitted */
static uint64_t unread_traced;  /* python_unread's last count */
static uintptr_t *modules_traced; /* start addresses of the modules emitted */
static unsigned nmodules_traced, modules_traced_cap;

static bool module_traced(uintptr_t start)
{
    for (unsigned i = 0; i < nmodules_traced; i++)
        if (modules_traced[i] == start)
            return true;
    if (nmodules_traced == modules_traced_cap) {
        unsigned cap = modules_traced_cap ? 2 * modules_traced_cap : 16;
        uintptr_t *grown = realloc(modules_traced, cap * sizeof *grown);
        if (!grown)
            return false; /* emitted again later: harmless */
        modules_traced = grown;
        modules_traced_cap = cap;
    }
    modules_traced[nmodules_traced++] = start;
    return false;
}

static void trace_site(uint16_t site, unsigned depth, struct tap_module **map, unsigned *nmap)
{
    const uintptr_t *frames = tap_site_frames(site);
    unsigned k = 0;
    while (k < depth && frames[k])
        k++;
    if (!*map)
        *map = tap_load_map(nmap);
    for (unsigned i = 0; i < k; i++) {
        const struct tap_module *m = tap_load_map_find(*map, *nmap, frames[i]);
        if (m && !module_traced(m->start))
            TAP_TRACE(module, m);
    }
    /* Each Python frame's strings once, before the first site naming it. */
    uint16_t python[TAP_CALLSITE_MAX_DEPTH];
    unsigned npy = 0;
    for (; npy < depth && npy < TAP_CALLSITE_MAX_DEPTH && (python[npy] = tap_site_python(site, npy)); npy++)
        if (!python_traced[python[npy]]) {
            python_traced[python[npy]] = 1;
            TAP_TRACE(python_frame, python[npy], tap_python_frame(python[npy]));
        }
    TAP_TRACE(callsite, site, frames, k, python, npy);
}

void tap_callsites_trace_new(void)
{
    uint64_t unread = tap_python_unread();
    if (unread != unread_traced && TAP_TRACING(python_unread)) {
        TAP_TRACE(python_unread, unread);
        unread_traced = unread;
    }
    unsigned n = tap_site_stats_count(), depth = tap_sites_depth();
    if (traced_upto == n || !depth || !TAP_TRACING(callsite))
        return;
    struct tap_module *map = NULL;
    unsigned nmap = 0;
    for (; traced_upto < n; traced_upto++) {
        uint16_t site = tap_site_stats_at(traced_upto)->site;
        if (site && !site_traced[site]) {
            site_traced[site] = 1;
            trace_site(site, depth, &map, &nmap);
        }
    }
    free(map);
}

void tap_callsites_after_fork(void)
{
    traced_upto = 0;
    memset(site_traced, 0, sizeof site_traced);
    memset(python_traced, 0, sizeof python_traced);
    unread_traced = 0;
    modules_traced = NULL;
    nmodules_traced = modules_traced_cap = 0;
}
