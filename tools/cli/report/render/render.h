/* Renderers: the report as text to read or as one JSON document. They
 * print what the document and the analyses hold; they compute no
 * statistics and open no input. The entry points (text.c, json_report.c, csv.c,
 * perfetto.c) call the sections declared here, which call only the shared
 * formatting below them all (format.h, escape.h). */
#ifndef NCCLTAP_CLI_REPORT_RENDER_H
#define NCCLTAP_CLI_REPORT_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model.h"

struct hang_summary;

struct report_summary;  /* analyze/summary.h: what the report says of the run */

/* How the text is laid out. */
struct text_options {
    bool wide;  /* every column of the op tables (else they fit 120 columns), C++ names whole */
};

/* --json's first key, "format": the document's version. */
#define REPORT_JSON_FORMAT "nccltap-report/1"

/* Each returns 0, or -1 when the output could not be written. */
int report_print_text(const struct report *r, const struct report_summary *s,
                      const struct text_options *o, FILE *out);
int report_print_json(const struct report *r, const struct report_summary *s, FILE *out);
/* The op tables' merged lines as CSV (RFC 4180), one header line. csv.c */
int report_print_csv(const struct report_summary *s, FILE *out);

/* The report as one HTML page that needs nothing but a browser: the
 * findings, then their pictures (SVG) and the tables; `strip` is the
 * timeline strip (analyze/strip.h). Returns 0, or -1 when it could not be
 * written. html.c */
struct strip;
int report_print_html(const struct report *r, const struct report_summary *s, const struct strip *strip,
                      FILE *out);

/* The timeline (analyze/timeline.c) as Chrome trace-event JSON. Returns
 * 0, or -1 when it could not be written. perfetto.c */
struct timeline;
int report_write_perfetto(const struct report *r, const struct timeline *t, FILE *out);

/* Sections of the text report, each its own function. */
void print_os_interference(const struct report *r, const struct report_summary *s,
                           FILE *out);  /* text_os.c */

/* The cross-rank sections of the text report (r->cross). crossrank_text.c */
void print_clocks(const struct report *r, FILE *out);
void print_stragglers(const struct report *r, FILE *out);
void print_slow_transfers(const struct report *r, FILE *out);

/* The Steps section, and --json's "steps" (analyze/steps.h, s->steps).
 * steps_render.c */
void print_steps(const struct report *r, const struct report_summary *s, FILE *out);
json_t *steps_json(const struct report *r, const struct report_summary *s);

/* The Entry points section, and --json's "entry_points"
 * (analyze/entry_points.h): NCCL's other calls, by name. entry_points_render.c */
void print_entry_points(const struct report_summary *s, FILE *out);
json_t *entry_points_json(const struct report_summary *s);

/* The One-sided section, and --json's "onesided" (analyze/onesided.h,
 * s->onesided): puts and signals by pair, waits by rank. onesided_render.c */
void print_onesided(const struct report_summary *s, FILE *out);
json_t *onesided_json(const struct report_summary *s);

/* `nccltap report --compare A B` (analyze/compare.h), as text or one
 * JSON document {"format": "nccltap-compare/1", "a", "b", "ops"}. 0, or
 * -1 when it could not be written. compare_render.c */
struct compare;
int compare_print_text(const struct compare *c, const char *path_a, const char *path_b, FILE *out);
int compare_print_json(const struct compare *c, const char *path_a, const char *path_b, FILE *out);

/* The same as JSON values: "crossrank", "stragglers", "slow_transfers".
 * crossrank_json.c */
json_t *crossrank_json(const struct report *r);

/* The Findings block (analyze/findings.h, s->findings): what is wrong,
 * one line each, or what was checked and found healthy. print_findings
 * returns 1 when there is a finding, 0 when healthy. --json's "findings"
 * and "checked". findings_render.c */
int print_findings(const struct report_summary *s, FILE *out);
json_t *findings_json(const struct report_summary *s);
/* One finding's line, as the text prints it, names shown() (malloc'ed;
 * NULL without memory). */
struct finding;
char *finding_line(const struct finding *f);
/* What to do next about it: one line, what to look at and the command
 * (malloc'ed; NULL without memory). */
char *finding_next_step(const struct finding *f);
/* What was checked and found healthy, as the text says it, without its
 * indent (malloc'ed; NULL without memory). */
char *findings_healthy_text(const struct report_summary *s);
/* Its --json "kind": "straggler", "hang"... */
const char *finding_key(const struct finding *f);
json_t *findings_checked_json(const struct report_summary *s);
/* `nccltap report --findings`: the block alone (text), or {"format",
 * "findings", "checked"} (json). 1: a finding, 0: healthy, -1: not written. */
int report_print_findings(const struct report_summary *s, bool json, FILE *out);

/* The Mismatches section (s->mismatches), nothing when there is none, and
 * --json's "mismatches"; what a group of ranks issued ("AllReduce 262144
 * float32 sum", "root 2" for a rooted op) and who ("rank 1", "ranks
 * 0,2-3"), as the MISMATCH finding says them. mismatch_render.c */
struct mismatch_side;
void print_mismatches(const struct report_summary *s, FILE *out);
json_t *mismatches_json(const struct report_summary *s);
json_t *mismatch_side_json(const struct mismatch_side *s);
void print_mismatch_call(const struct mismatch_side *s, FILE *out);
void print_mismatch_ranks(const struct mismatch_side *s, FILE *out);

/* The Settings section (s->settings), nothing when none differs, and
 * --json's "settings"; one setting as the SETTINGS finding says it
 * ("NCCL_PROTO is set (value #e347a123) on rank 1, where it is unset on
 * 3 ranks (0, 2-3)"), the first value's process named when `process`.
 * settings_render.c */
struct setting_diff;
void print_settings(const struct report_summary *s, FILE *out);
json_t *settings_json(const struct report_summary *s);
json_t *setting_diff_json(const struct setting_diff *d);
const char *setting_kind(const struct setting_diff *d);
void print_setting_diff(const struct setting_diff *d, bool process, FILE *out);

/* The Hang section and --json's "hang" (r->hangs). hang_render.c */
void print_hang(const struct report *r, const struct hang_summary *hs, FILE *out);
json_t *hang_json(const struct hang_summary *hs);
json_t *stragglers_json(const struct report *r);
json_t *slow_transfers_json(const struct report *r);

#endif
