/* Formatting that several renderers share: sizes as text, call-site
 * frames as JSON, the header's lists of names. The bottom of render/ with escape.h: the text and JSON
 * renderers and their sections call it; it calls none of them. Pure
 * functions, callable from any thread. */
#ifndef NCCLTAP_CLI_REPORT_FORMAT_H
#define NCCLTAP_CLI_REPORT_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "callsites.h"
#include "model.h"

/* Whether every JSON reader holds n exactly: up to 2^53 - 1, a double's
 * integers. Larger ones (a profiler tag) are written as decimal strings. */
static inline bool json_exact_integer(uint64_t n) { return n < (1ull << 53); }

/* 1536 -> "1.5K": binary units, as NCCL and nccl-tests print sizes. */
const char *human_bytes(double b, char buf[16]);

/* A call site's frame as --json gives it: {function, inlined_into, file,
 * line, library, offset, python}. */
json_t *site_frame_json(const struct site_frame *f);

/* A demangled C++ name (not a Python one) made readable: template arguments, parameter lists
 * and lambdas' parameters elided, "ns::Class::fn<…>(…)::{lambda#1}";
 * empty lists and "(anonymous namespace)" kept. The text report's short
 * form (--json and --wide give the full name). Returns buf, cut to len. */
const char *short_function(const char *name, char *buf, size_t len);

/* "0-2, 5": ranks v[0..n), ascending, runs joined. */
void print_rank_list(const int *v, size_t n, FILE *out);

/* What a report's header names, over r's files: the ranks, and the
 * distinct non-empty jobs, hosts, NCCL versions and timing modes, each as
 * shown() spells them, comma-separated, a few then "..." (malloc'ed), with
 * how many there are. */
struct header_names {
    size_t nranks, njobs, nhosts, nversions, ntimings;
    char *jobs, *hosts, *versions, *timings;
};
void header_names(const struct report *r, size_t nranks, struct header_names *h);
void header_names_free(struct header_names *h);

/* ", called from train.py:88" (or the function without a line); nothing
 * for a NULL site: where a finding's op was called. */
struct callsite;
void print_finding_site(const struct callsite *site, FILE *out);

/* The sites (indexes into s->sites, ascending) that made calls of rows
 * with `row`'s key (communicator, op, dtype, size class), at most `max`;
 * returns how many there are in all. */
size_t callsite_sites_of(const struct callsite_summary *s, const struct op_row *row, size_t *out, size_t max);

#endif
