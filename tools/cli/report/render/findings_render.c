/* The Findings block (analyze/findings.h): one line per finding, worst
 * first, with its evidence and the section to read next; or one line that
 * says what was checked and found healthy. The same lines are --json's
 * "findings" (each entry's "text") and all that `nccltap report
 * --findings` prints. */
#include "render.h"
#include "escape.h"
#include "finding_kinds.h"
#include "finding_text.h"
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

/* The section's heading in the text, and its key in --json. */
static const char *const section_titles[] = {
    [SECTION_MISMATCHES] = "Mismatches",
    [SECTION_HANG] = "Hang",
    [SECTION_STRAGGLERS] = "Stragglers",
    [SECTION_SLOW_TRANSFERS] = "Slow transfers",
    [SECTION_OS_INTERFERENCE] = "OS interference",
    [SECTION_SETTINGS] = "Settings",
    [SECTION_STEPS] = "Steps",
};
static const char *const section_keys[] = {
    [SECTION_MISMATCHES] = "mismatches",
    [SECTION_HANG] = "hang",
    [SECTION_STRAGGLERS] = "stragglers",
    [SECTION_SLOW_TRANSFERS] = "slow_transfers",
    [SECTION_OS_INTERFERENCE] = "os_interference",
    [SECTION_SETTINGS] = "settings",
    [SECTION_STEPS] = "steps",
};
_Static_assert(sizeof section_titles / sizeof section_titles[0] == SECTION_COUNT, "a title for every section");
_Static_assert(sizeof section_keys / sizeof section_keys[0] == SECTION_COUNT, "a key for every section");

/* What to do next about a finding: one line, what to look at and the
 * command (the alerts' descriptions say the same, docs/findings.md). */
static void print_next_step(const struct finding *f, FILE *out)
{
    finding_kind_of(f)->next(f, out);
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
    const struct finding_kind_row *k = finding_kind_of(f);
    fprintf(out, "%s ", k->name);
    k->line(f, sep, out);
    fprintf(out, "; see %s", section_titles[f->section]);
}

/* What was checked, found healthy. */
static void print_healthy(const struct findings *fs, FILE *out)
{
    char c[32], p[32];
    if (fs->one_rank_records) {
        fputs("  None: no hang; the per-op records hold no collective or send/recv pair to compare across\n"
              "  ranks (one-sided calls only: see One-sided)\n", out);
        return;
    }
    if (!fs->records) {
        fputs("  None: no hang; no per-op records to look for stragglers or slow transfers in\n"
              "  (NCCLTAP_OPS_MAX_MB=0, or no call timed)\n", out);
        return;
    }
    fprintf(out, "  None: no mismatch, straggler, hang or slow transfer in %s collectives", finding_grouped(fs->collectives, c));
    if (fs->pairs)
        fprintf(out, " and %s send/recv pairs", finding_grouped(fs->pairs, p));
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
    return finding_kind_of(f)->key;
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
    const struct finding_kind_row *k = finding_kind_of(f);
    char comm[17];
    snprintf(comm, sizeof comm, "%016" PRIx64, f->comm);
    json_t *o = json_pack("{s:s, s:s, s:f}", "kind", k->key, "section", section_keys[f->section],
                          "cost_us", f->cost_us);
    json_object_set_new(o, "rank", f->rank >= 0 ? json_integer(f->rank) : json_null());
    json_object_set_new(o, "host", f->file ? json_string(f->file->host) : json_null());
    json_object_set_new(o, "pid", f->file ? json_integer(f->file->pid) : json_null());
    if (k->json & FINDING_JSON_PEER)
        json_object_set_new(o, "peer", f->peer >= 0 ? json_integer(f->peer) : json_null());
    json_object_set_new(o, "comm", f->comm ? json_string(comm) : json_null());
    json_object_set_new(o, "op", f->op ? json_string(f->op) : json_null());
    if (k->json & FINDING_JSON_SEQ)
        json_object_set_new(o, "seq", json_integer((json_int_t)f->seq));
    if ((k->json & FINDING_JSON_REPLAY) && f->replay)  /* an execution of the captured call seq */
        json_object_set_new(o, "replay", json_integer((json_int_t)f->replay));
    if (f->bytes)
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_t *e = json_object();
    k->evidence(f, e);
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
