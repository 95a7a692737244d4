/* Filling one process's struct rank_file (../model.h): the one way into
 * the model for every reader of a process, the streaming reader of rank
 * files (rank_parse.c) and the trace's (trace_doc.c, trace_rows.c), so
 * that a process is held to one set of defaults and checks whatever it
 * was read from:
 *  - the defaults of what a reader leaves unset ("" strings, NaN times,
 *    the unset config fields, a row's absent count of steady calls);
 *  - each held rank, communicator and row checked once the reader has set
 *    it: one out of range (input_limits.h), or that a rank file could not
 *    spell (a count past 2^63, a size or bandwidth that is not a number),
 *    is left out and counted, the rest of the process kept;
 *  - histograms in the report's arena; the rejected entries said once,
 *    naming the process; arrays trimmed to what they hold;
 *  - the parts both readers keep as JSON (call sites and modules, the
 *    NCCL_* environment, the program's step marks, the OS records) handed
 *    to their loaders as a jansson object, never as text;
 *  - the filled process appended to the report.
 * Used on the report's loading thread. */
#ifndef NCCLTAP_CLI_REPORT_RANK_FILL_H
#define NCCLTAP_CLI_REPORT_RANK_FILL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "model.h"

/* One process being filled. Its fields are the fill's own. */
struct rank_fill {
    struct report *r;
    struct rank_file *f;
    size_t ranks_cap, comms_cap, ops_cap;
    uint64_t rejected;           /* entries left out */
    const char *first_rejected;  /* why the first was */
};

/* Starts filling *f (zeroed by the caller, f->path set) with the file's
 * defaults; strings are interned in r. */
void rank_fill_begin(struct rank_fill *w, struct report *r, struct rank_file *f);

/* A rank the process holds (in a root communicator), appended unless out
 * of range. */
void rank_fill_rank(struct rank_fill *w, long long rank);

/* A new communicator entry, with its defaults, for the reader to set; then
 * rank_fill_comm_check() before the next entry. The pointer is good until
 * then. */
struct comm_entry *rank_fill_comm(struct rank_fill *w);
/* Leaves the entry just set out when it is out of range. */
void rank_fill_comm_check(struct rank_fill *w);

/* A new row, with its defaults (t_count absent: UINT64_MAX), for the
 * reader to set; then rank_fill_row_check(). Rows come after the
 * communicators: a row of the "(overflow)" communicator is known by its
 * entry. */
struct op_row *rank_fill_row(struct rank_fill *w);
/* Gives a row without t_count every timed call (files before it kept no
 * first call apart), and leaves the row out when it is out of range. */
void rank_fill_row_check(struct rank_fill *w);

/* Copies bins[0..n) into the report's arena as row's histogram. */
void rank_fill_hist(struct rank_fill *w, struct op_row *row, const struct hist_bin *bins, size_t n);

/* Ends the entries: says the rejected ones, trims the arrays. */
void rank_fill_end(struct rank_fill *w);

/* Hands `kept`, the members of the process kept as JSON (rank_parse.h
 * lists them; absent ones are fine), to their loaders. Returns 0, or -1
 * with `why` naming what is wrong. */
int rank_fill_kept(struct rank_fill *w, json_t *kept, char *why, size_t why_len);

/* Appends *f to r when `filled` is 0 (op_row.file set); otherwise names it
 * on stderr with `why`, counts it skipped and frees it. Returns `filled`. */
int rank_fill_add(struct report *r, struct rank_file *f, int filled, const char *why);

/* Frees what a rank file owns (not its strings and histograms: they are
 * the report's). */
void rank_file_free(struct rank_file *f);

#endif
