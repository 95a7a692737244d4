/* The shim's configuration, read once from NCCLTAP_* variables. A bad value
 * is reported with the variable's name and what is accepted, then the
 * default is used: configuration never stops the application. */
#ifndef NCCLTAP_CONFIG_H
#define NCCLTAP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most frames a call site can have (NCCLTAP_CALLSITE_DEPTH). */
#define TAP_CALLSITE_MAX_DEPTH 32

enum tap_timing_mode { TAP_TIMING_OFF, TAP_TIMING_AUTO, TAP_TIMING_ALL, TAP_TIMING_PAIRS, TAP_TIMING_MODES };
/* NCCLTAP_GRAPH_TIMING: the executions of ops captured into CUDA graphs
 * are timed (each launch), or only counted. */
enum tap_graph_timing { TAP_GRAPH_TIMING_OFF, TAP_GRAPH_TIMING_ALL };
enum tap_lttng_mode { TAP_LTTNG_OFF, TAP_LTTNG_AUTO, TAP_LTTNG_ON };
/* NCCLTAP_OPS_JSONL: no per-op log (0), nccltap's own lines (1), or NCCL
 * Inspector's records (inspector). Off is 0, so `if (ops_jsonl)` asks
 * whether there is a log. */
enum tap_ops_jsonl { TAP_OPS_JSONL_OFF, TAP_OPS_JSONL_NCCLTAP, TAP_OPS_JSONL_INSPECTOR };

struct tap_config {
    char dir[4096];              /* NCCLTAP_DIR, default ./nccltap-<job key> */
    char job[128];               /* the launcher's job key, "" if none */
    char run_id[64];             /* names this launch's files (run_id.h) */
    mode_t dir_mode;             /* NCCLTAP_DIR_MODE: of directories created */
    const char *nccl_library;    /* NCCLTAP_NCCL_LIBRARY, NULL: dlsym(RTLD_NEXT) */
    enum tap_timing_mode timing; /* NCCLTAP_TIMING */
    enum tap_graph_timing graph_timing; /* NCCLTAP_GRAPH_TIMING */
    double overhead_pct;         /* NCCLTAP_OVERHEAD_PCT */
    uint32_t interval_ms;        /* NCCLTAP_INTERVAL_MS */
    uint32_t poll_us;            /* NCCLTAP_POLL_US */
    uint32_t exit_wait_ms;       /* NCCLTAP_EXIT_WAIT_MS */
    uint32_t max_inflight;       /* NCCLTAP_MAX_INFLIGHT: timed ops in flight */
    uint32_t ring_size;          /* NCCLTAP_RING_SIZE: records queued */
    bool verbose;                /* NCCLTAP_VERBOSE */
    enum tap_ops_jsonl ops_jsonl; /* NCCLTAP_OPS_JSONL: a line per timed op, in which format */
    uint32_t hang_timeout_s;     /* NCCLTAP_HANG_TIMEOUT_S, 0: no watchdog */
    uint32_t ops_max_mb;         /* NCCLTAP_OPS_MAX_MB: bound of the per-op file, 0: none */
    bool ops_max_set;            /* ... given, and valid: else the job's share (writers/ops_bound.h) */
    uint32_t job_ranks, job_nodes; /* the launcher's world: ranks and nodes, 0 unknown */
    uint32_t job_world;          /* the launcher's world size alone (tap_parse_job_world), 0 unknown */
    enum tap_lttng_mode lttng;   /* NCCLTAP_LTTNG */
    bool os_switch;              /* NCCLTAP_OS: switch (true) or off */
    uint32_t callsite_depth;     /* NCCLTAP_CALLSITE_DEPTH: frames per call site, 0 off */
    char callsite_skip[1024];    /* NCCLTAP_CALLSITE_SKIP: libraries whose frames are skipped */
    char python_skip[1024];      /* NCCLTAP_CALLSITE_PYTHON_SKIP: parts of Python files' paths skipped */
    char prom_dir[4096];         /* NCCLTAP_PROM_DIR: Prometheus textfiles, "" none */
    bool prom_keep;              /* NCCLTAP_PROM_KEEP: leave them at exit */
    bool prom_inspector;         /* NCCLTAP_PROM_INSPECTOR: Inspector's gauges in them */
    char job_id[128];            /* the metrics' job_id label (tap_job_id_of) */
};

extern struct tap_config tap_config;

/* Fills tap_config from the environment, saying what is wrong in it. */
void tap_config_load(void);

/* NCCLTAP_* names nccltap does not read are misspellings (the setting is
 * lost otherwise): each is said, with the nearest known name, once, by
 * the process that speaks for the job (rank 0 of its launcher, or one no
 * launcher gave a rank), unless `nccltap run` said it already
 * (NCCLTAP_VARS_CHECKED). At the first communicator (runtime.c), not at
 * load: under a plain LD_PRELOAD every process a script starts (a shell,
 * `date`) would say it, while only those that use NCCL are affected. */
void tap_config_say_misspelled(void);

/* tap_config_load, once per process and thread-safely: whichever path
 * needs the configuration first (bring-up, or the NCCL resolver called
 * before the shim's constructor) loads it. */
void tap_config_ensure(void);

/* Parsers of one variable's value: each returns 0 and sets *value, or -1
 * when `s` is not valid. Pure (the configuration fuzzer calls them; the
 * environment is read, and bad values said, by tap_config_load).
 * A boolean: "0" or "1". */
int tap_parse_flag(const char *s, bool *value);
/* A whole number from `min` to `max`, decimal digits only. */
int tap_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *value);
/* A percentage above 0 and at most 100. */
int tap_parse_pct(const char *s, double *value);
/* NCCLTAP_TIMING: "auto", "all" or "off". */
int tap_parse_timing(const char *s, enum tap_timing_mode *value);
/* NCCLTAP_GRAPH_TIMING: "all" or "off". */
int tap_parse_graph_timing(const char *s, enum tap_graph_timing *value);
/* The bounds of NCCLTAP_INTERVAL_MS and NCCLTAP_HANG_TIMEOUT_S (from 0),
 * for tap_parse_u32: the shim's and `nccltap run`'s options'. */
#define TAP_INTERVAL_MS_MIN 10
#define TAP_INTERVAL_MS_MAX 3600000
#define TAP_HANG_TIMEOUT_S_MAX 604800 /* a week */
/* NCCLTAP_OPS_JSONL: "0", "1" or "inspector". */
int tap_parse_ops_jsonl(const char *s, enum tap_ops_jsonl *value);
/* The ranks of the job and the nodes they run on, as its launcher says
 * (torchrun's WORLD_SIZE and LOCAL_WORLD_SIZE, Open MPI's
 * OMPI_COMM_WORLD_SIZE and _LOCAL_SIZE, then Slurm's SLURM_NTASKS and
 * SLURM_NNODES); `get` reads a variable (getenv). Returns 0 and sets both,
 * or -1 when no launcher says (or says something that is not a whole
 * number of nodes). */
int tap_parse_job_shape(char *(*get)(const char *), uint32_t *ranks, uint32_t *nodes);

/* The job's ranks as its launcher gives them: WORLD_SIZE (torchrun),
 * OMPI_COMM_WORLD_SIZE, SLURM_NTASKS, PMI_SIZE (MPICH, Intel MPI), the
 * first set; 0 when none is. */
uint32_t tap_parse_job_world(char *(*get)(const char *));

/* NCCLTAP_OPS_MAX_MB's default, the most a process writes of either per-op
 * output unless the variable says otherwise; and what a job's processes
 * write of each together by default (writers/ops_bound.h). */
#define TAP_OPS_MAX_MB_DEFAULT 256u
#define TAP_OPS_JOB_MAX_MB 16384u

/* The job id the metrics carry: NCCLTAP_JOB_ID, else SLURM_JOB_ID, else
 * TORCHELASTIC_RUN_ID, read through `get` (getenv); "" when none is set.
 * Returns -1 when the chosen value does not fit `len` (then `out` is ""). */
int tap_job_id_of(char *out, size_t len, char *(*get)(const char *));

/* For an environment entry ("NAME=value") whose name starts NCCLTAP_ but is
 * none that nccltap reads (config_vars.def): the known name nearest to it
 * (edit distance), a misspelling's likely meaning. NULL for any other
 * entry. *name_len gets the name's length. Pure: `nccltap run` checks its
 * environment with it too. */
const char *tap_config_misspelled(const char *entry, size_t *name_len);

const char *tap_timing_mode_name(enum tap_timing_mode m);

#endif
