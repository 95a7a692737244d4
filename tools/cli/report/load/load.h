/* Loaders: each turns one kind of input into the document model
 * (../model.h). They never print the report; what they cannot read they
 * name on stderr and count (report.nskipped). */
#ifndef NCCLTAP_CLI_REPORT_LOAD_H
#define NCCLTAP_CLI_REPORT_LOAD_H

#include "model.h"

#include <jansson.h>

#define RANK_FILE_PATTERN "nccltap-*.json"
#define HANG_FILE_SUFFIX ".hang.json"  /* not rank files, though they match the pattern */

/* The paths of the per-rank files in `dir`, sorted: a NULL-terminated
 * malloc'ed array of *n paths, or NULL (errno set) when `dir` cannot be read. */
char **report_files(const char *dir, size_t *n);
void report_files_free(char **files);

/* Runs (runs.c). How many of `files` belong to run `run` ("" for files
 * named before run ids). */
size_t report_files_of_run(char *const *files, size_t n, const char *run);

/* The run id in a rank file's name (nccltap-<run>@<host>-<pid>.json): a
 * pointer into `path`, and its length (0 for files named before run ids).
 * runs.c */
const char *report_run_of(const char *path, size_t *len);

/* Keeps in `files` (as report_files returns them) only one run's: `wanted`,
 * or when NULL the newest (the run of the most recently written file);
 * names the other runs on stderr. Returns 0, or -1 when `wanted` has no
 * file (said on stderr). */
int report_keep_run(const char *dir, char **files, size_t *n, const char *wanted);

/* Loads every per-rank file of one run in `dir` (`run`, or the newest when
 * NULL: report_keep_run), with its per-op log where there is one; a file that cannot be read or does not have the expected format is
 * named on stderr and skipped. Returns 0, or -1 when no file could be
 * loaded (said on stderr). rank_files.c */
int report_load(const char *dir, const char *run, struct report *r);
void report_free(struct report *r);

/* Fills f's call sites and load map from a per-rank document; a document
 * without them (an older shim, or call sites off) is fine. Returns 0, or
 * -1 with `why` naming what is wrong. callsite_load.c */
int report_load_callsites(struct report *r, json_t *root, struct rank_file *f, char *why,
                          size_t why_len);

/* Fills f->os_mode, os_note and os from a per-rank document's "os" (the
 * shim's context-switch records, NCCLTAP_OS); none is fine. Returns 0, or
 * -1 with `why` naming what is wrong. os_records.c */
int report_load_os(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len);
/* A rank file's "nccl_env" (kept as JSON) into f->env: names and value
 * hashes; none when absent. -1 with `why` when it is damaged. nccl_env.c */
int report_load_nccl_env(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len);
/* A rank file's "entry_points" (kept as JSON: the process's calls of
 * NCCL's other entry points, by name) into f->entry_points; none when
 * absent. -1 with `why` when it is damaged. entry_points_load.c */
int report_load_entry_points(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len);
/* A rank file's "steps" (kept as JSON: the program's nccltap_step()
 * marks) into f->steps_marked and step_marks; none when absent. -1 with
 * `why` when it is damaged. step_marks_load.c */
int report_load_step_marks(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len);

/* Fills every call-site frame's function, file, line and library from the
 * objects of the files' load maps, with elfutils. Objects are looked for at
 * their recorded paths, then by build id under each of debug_dirs[0..n)
 * and /usr/lib/debug; what cannot be found gives "library+0xoffset".
 * symbolize.c */
void report_symbolize(struct report *r, char *const *debug_dirs, size_t n);

/* Reads the per-op log at `path` (JSON lines, as the shim writes with
 * NCCLTAP_OPS_JSONL) into f->events, sorted. A missing file is not an
 * error; a damaged line is named on stderr and skipped. ops_log_read.c */
void report_load_ops_log(struct report *r, struct rank_file *f, const char *path);

/* Reads the per-op file at `path` (binary, as the shim writes by default)
 * into f->events, sorted, and counts what the shim dropped in
 * f->events_dropped. Returns false when there is no such file; a damaged
 * one is named on stderr. ops_file_read.c */
bool report_load_ops_file(struct report *r, struct rank_file *f, const char *path);

/* The hang reports next to the loaded rank files (".json" ->
 * HANG_FILE_SUFFIX) into r->hangs; report_free frees them. hang_files.c */
void report_load_hangs(struct report *r);
void report_hangs_free(struct report *r);

/* nccltap-bench's own results beside the loaded rank files
 * (bench-<run>.rank<R>.json, its --json) into r->bench; none is fine.
 * bench_files.c */
void report_load_bench(struct report *r);

/* Sorts f->events by (comm, rank, seq, replay), and its tags (rank_file_sort_tags).
 * ops_log_read.c */
void report_sort_events(struct rank_file *f);

/* Loads an LTTng trace (a directory with a CTF `metadata` file, or one
 * holding such directories) into the model, one struct rank_file per
 * traced process, filled and checked as a per-rank file is (rank_fill.h),
 * with their op events, and the kernel events of the hosts whose kernel
 * was traced (r->kernels). Returns 0, or -1 after saying why on stderr.
 * trace_load.c */
int report_load_trace(const char *path, struct report *r);

/* Frees what a kernel trace holds. trace_kernel.c */
void kernel_trace_free(struct kernel_trace *t);

/* True when `path` holds no per-rank file but has a CTF trace at or below
 * it. trace_load.c */
bool report_path_is_trace(const char *path);

#endif
