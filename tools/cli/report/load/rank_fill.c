/* The one way a process enters the model (rank_fill.h). */
#include "rank_fill.h"
#include "input_limits.h"
#include "load.h"
#include "record_check.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void rank_fill_begin(struct rank_fill *w, struct report *r, struct rank_file *f)
{
    memset(w, 0, sizeof *w);
    w->r = r;
    w->f = f;
    f->final = true;
    f->host = f->job = f->nccl_version = f->timing = f->timing_note = "";
    f->nccl_busy_s = f->nccl_timed_s = f->clock_calibration_error_ns = NAN;
}

/* Counts an entry left out. */
static void reject(struct rank_fill *w, const char *why)
{
    if (w->rejected++ == 0)
        w->first_rejected = why;
}

void rank_fill_rank(struct rank_fill *w, long long rank)
{
    struct rank_file *f = w->f;
    if (rank < 0 || rank >= REPORT_MAX_NRANKS) {
        reject(w, "a rank outside 0..2^20");
        return;
    }
    f->ranks = xgrow(f->ranks, &w->ranks_cap, f->nranks, sizeof *f->ranks, 16);
    f->ranks[f->nranks++] = (int)rank;
}

struct comm_entry *rank_fill_comm(struct rank_fill *w)
{
    struct rank_file *f = w->f;
    f->comms = xgrow(f->comms, &w->comms_cap, f->ncomms, sizeof *f->comms, 16);
    struct comm_entry *c = &f->comms[f->ncomms++];
    memset(c, 0, sizeof *c);
    c->parent = c->name = c->origin = c->state = "";
    c->init_ms = NAN;
    c->config = (struct comm_config){ 0, COMM_CONFIG_UNSET, COMM_CONFIG_UNSET, COMM_CONFIG_UNSET, COMM_CONFIG_UNSET,
                                      COMM_CONFIG_UNSET, COMM_CONFIG_UNSET, "" };
    return c;
}

/* A rank file spells counts as JSON integers, which are long long: a
 * reader of another form is held to the same. */
static bool past_2_63(uint64_t v)
{
    return v > (uint64_t)INT64_MAX;
}

void rank_fill_comm_check(struct rank_fill *w)
{
    struct rank_file *f = w->f;
    const struct comm_entry *c = &f->comms[f->ncomms - 1];
    const char *why = comm_entry_invalid(c);
    if (!why && past_2_63(c->calls))
        why = "a count past 2^63";
    if (why) {
        reject(w, why);
        f->ncomms--;
    }
}

struct op_row *rank_fill_row(struct rank_fill *w)
{
    struct rank_file *f = w->f;
    f->ops = xgrow(f->ops, &w->ops_cap, f->nops, sizeof *f->ops, 16);
    struct op_row *row = &f->ops[f->nops++];
    memset(row, 0, sizeof *row);
    row->comm_name = "";
    row->grouped = 1.0;
    row->first_us = row->us_mean = row->us_min = row->us_p50 = NAN;
    row->us_p90 = row->us_p99 = row->us_max = row->algbw_gbs = row->busbw_gbs = NAN;
    row->t_count = UINT64_MAX;  /* absent: rank_fill_row_check */
    return row;
}

/* Whether `comm` is an "(overflow)" communicator of the process (listed
 * before its rows): its rows have rank -1. */
static bool of_overflow(const struct rank_file *f, const char *comm)
{
    for (size_t i = 0; i < f->ncomms; i++)
        if (comm_entry_is_overflow(&f->comms[i]) && strcmp(f->comms[i].id, comm) == 0)
            return true;
    return false;
}

static const char *row_invalid(const struct rank_file *f, const struct op_row *row)
{
    if ((row->rank < 0 || row->rank >= REPORT_MAX_NRANKS) && !(row->rank == -1 && of_overflow(f, row->comm)))
        return "a rank outside 0..2^20";
    const uint64_t counts[] = { row->size_class, row->bytes_total, row->calls, row->timed, row->stamped,
                                row->captured, row->executions, row->t_count, row->t_sum, row->t_min, row->t_max };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (past_2_63(counts[i]))
            return "a count past 2^63";
    /* NaN is a time or bandwidth that is not known (null); these always are. */
    if (isnan(row->bytes) || isnan(row->grouped) || isnan(row->bw_bytes) || isnan(row->bw_busbytes))
        return "a size or bandwidth that is not a number";
    return NULL;
}

void rank_fill_row_check(struct rank_fill *w)
{
    struct rank_file *f = w->f;
    struct op_row *row = &f->ops[f->nops - 1];
    if (row->t_count == UINT64_MAX)
        row->t_count = row->timed;
    const char *why = row_invalid(f, row);
    if (why) {
        reject(w, why);
        f->nops--;
    }
}

void rank_fill_hist(struct rank_fill *w, struct op_row *row, const struct hist_bin *bins, size_t n)
{
    row->nhist = n;
    row->hist = report_alloc(w->r, n * sizeof *row->hist);
    if (n)  /* bins may be NULL when there are none */
        memcpy(row->hist, bins, n * sizeof *row->hist);
}

static void shrink(void **array, size_t n, size_t size)
{
    if (*array && n)
        *array = xrealloc(*array, n * size);
}

void rank_fill_end(struct rank_fill *w)
{
    struct rank_file *f = w->f;
    report_rejected(w->r, f->path, w->rejected, "entry", w->first_rejected);
    /* The arrays grew by doubling: a thousand processes keep what they use. */
    shrink((void **)&f->comms, f->ncomms, sizeof *f->comms);
    shrink((void **)&f->ops, f->nops, sizeof *f->ops);
    shrink((void **)&f->ranks, f->nranks, sizeof *f->ranks);
}

int rank_fill_kept(struct rank_fill *w, json_t *kept, char *why, size_t why_len)
{
    if (report_load_callsites(w->r, kept, w->f, why, why_len) != 0)
        return -1;
    if (report_load_nccl_env(w->r, kept, w->f, why, why_len) != 0)
        return -1;
    if (report_load_step_marks(w->r, kept, w->f, why, why_len) != 0)
        return -1;
    if (report_load_entry_points(w->r, kept, w->f, why, why_len) != 0)
        return -1;
    return report_load_os(w->r, kept, w->f, why, why_len);
}

/* op_row.file points into r->files: set for files[from..], and for all of
 * them when the array has moved. */
static void link_rows(struct report *r, size_t from)
{
    for (size_t i = from; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nops; j++)
            r->files[i].ops[j].file = &r->files[i];
}

int rank_fill_add(struct report *r, struct rank_file *f, int filled, const char *why)
{
    if (filled != 0) {
        msg("skipping %s: %s", f->path, why);
        rank_file_free(f);
        r->nskipped++;
        return -1;
    }
    size_t from = r->nfiles;
    if (r->nfiles == r->files_cap) {
        r->files_cap = r->files_cap ? 2 * r->files_cap : 16;
        r->files = xrealloc(r->files, r->files_cap * sizeof *r->files);
        from = 0;
    }
    r->files[r->nfiles++] = *f;
    link_rows(r, from);
    return 0;
}

void rank_file_free(struct rank_file *f)
{
    free(f->ops);
    free(f->events);
    free(f->tags);
    rank_file_streams_free(f);
    free(f->comms);
    free(f->ranks);
    free(f->path);
    memset(f, 0, sizeof *f);
}
