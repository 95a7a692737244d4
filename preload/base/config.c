#include "base/config.h"

#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/out_dir.h"
#include "base/run_id.h"

struct tap_config tap_config;

/* The variables nccltap reads (config_vars.def). */
static const char *const known_vars[] = {
#define NCCLTAP_VAR(name, def, accepted, meaning) name,
#include "base/config_vars.def"
};

static const char *const timing_names[] = {
    [TAP_TIMING_OFF] = "off", [TAP_TIMING_AUTO] = "auto", [TAP_TIMING_ALL] = "all", [TAP_TIMING_PAIRS] = "pairs"};

const char *tap_timing_mode_name(enum tap_timing_mode m) { return timing_names[m]; }

int tap_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *value)
{
    if (*s < '0' || *s > '9') /* no sign, no space: strtoull would take them */
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *value = (uint32_t)v;
    return 0;
}

int tap_parse_pct(const char *s, double *value)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0 && v <= 100)) /* NaN fails the range */
        return -1;
    *value = v;
    return 0;
}

static uint32_t env_u32(const char *name, uint32_t def, uint32_t min, uint32_t max)
{
    const char *s = getenv(name);
    uint32_t v;
    if (!s || !*s)
        return def;
    if (tap_parse_u32(s, min, max, &v) == 0)
        return v;
    tap_log("%s=%s is not valid: expected a whole number from %u to %u; using %u", name, s, min, max, def);
    return def;
}

static double env_pct(const char *name, double def)
{
    const char *s = getenv(name);
    double v;
    if (!s || !*s)
        return def;
    if (tap_parse_pct(s, &v) == 0)
        return v;
    tap_log("%s=%s is not valid: expected a percentage above 0 and at most 100; using %g", name, s, def);
    return def;
}

int tap_parse_timing(const char *s, enum tap_timing_mode *value)
{
    for (int m = 0; m < TAP_TIMING_MODES; m++)
        if (!strcmp(s, timing_names[m])) {
            *value = (enum tap_timing_mode)m;
            return 0;
        }
    return -1;
}

static enum tap_timing_mode env_timing(void)
{
    const char *s = getenv("NCCLTAP_TIMING");
    enum tap_timing_mode m;
    if (!s || !*s)
        return TAP_TIMING_AUTO;
    if (tap_parse_timing(s, &m) == 0)
        return m;
    tap_log("NCCLTAP_TIMING=%s is not valid: expected auto, all, pairs or off; using auto", s);
    return TAP_TIMING_AUTO;
}

int tap_parse_graph_timing(const char *s, enum tap_graph_timing *value)
{
    if (!strcmp(s, "all"))
        *value = TAP_GRAPH_TIMING_ALL;
    else if (!strcmp(s, "off"))
        *value = TAP_GRAPH_TIMING_OFF;
    else
        return -1;
    return 0;
}

static enum tap_graph_timing env_graph_timing(void)
{
    const char *s = getenv("NCCLTAP_GRAPH_TIMING");
    enum tap_graph_timing m;
    if (!s || !*s)
        return TAP_GRAPH_TIMING_OFF;
    if (tap_parse_graph_timing(s, &m) == 0)
        return m;
    tap_log("NCCLTAP_GRAPH_TIMING=%s is not valid: expected all or off; using off", s);
    return TAP_GRAPH_TIMING_OFF;
}

static enum tap_lttng_mode env_lttng(void)
{
    const char *s = getenv("NCCLTAP_LTTNG");
    if (!s || !*s || !strcmp(s, "auto"))
        return TAP_LTTNG_AUTO;
    if (!strcmp(s, "0"))
        return TAP_LTTNG_OFF;
    if (!strcmp(s, "1"))
        return TAP_LTTNG_ON;
    tap_log("NCCLTAP_LTTNG=%s is not valid: expected auto, 0 or 1; using auto", s);
    return TAP_LTTNG_AUTO;
}

static bool env_os(void)
{
    const char *s = getenv("NCCLTAP_OS");
    if (!s || !*s || !strcmp(s, "switch"))
        return true;
    if (!strcmp(s, "off"))
        return false;
    tap_log("NCCLTAP_OS=%s is not valid: expected switch or off; using switch", s);
    return true;
}

int tap_parse_flag(const char *s, bool *value)
{
    if (!strcmp(s, "0") || !strcmp(s, "1")) {
        *value = s[0] == '1';
        return 0;
    }
    return -1;
}

/* A boolean variable: unset or empty is `def`; a bad value is said and
 * `def` used, as for every other variable. */
static bool env_flag(const char *name, bool def)
{
    const char *s = getenv(name);
    bool v;
    if (!s || !*s)
        return def;
    if (tap_parse_flag(s, &v) == 0)
        return v;
    tap_log("%s=%s is not valid: expected 0 or 1; using %d", name, s, def);
    return def;
}

int tap_parse_ops_jsonl(const char *s, enum tap_ops_jsonl *value)
{
    bool on;
    if (tap_parse_flag(s, &on) == 0) {
        *value = on ? TAP_OPS_JSONL_NCCLTAP : TAP_OPS_JSONL_OFF;
        return 0;
    }
    if (!strcmp(s, "inspector")) {
        *value = TAP_OPS_JSONL_INSPECTOR;
        return 0;
    }
    return -1;
}

static enum tap_ops_jsonl env_ops_jsonl(void)
{
    const char *s = getenv("NCCLTAP_OPS_JSONL");
    enum tap_ops_jsonl v;
    if (!s || !*s)
        return TAP_OPS_JSONL_OFF;
    if (tap_parse_ops_jsonl(s, &v) == 0)
        return v;
    tap_log("NCCLTAP_OPS_JSONL=%s is not valid: expected 0, 1 or inspector; using 0", s);
    return TAP_OPS_JSONL_OFF;
}

/* A positive count from `get`, or 0. */
static uint32_t launcher_count(char *(*get)(const char *), const char *name)
{
    const char *s = get(name);
    uint32_t v;
    return s && tap_parse_u32(s, 1, 1u << 24, &v) == 0 ? v : 0;
}

uint32_t tap_parse_job_world(char *(*get)(const char *))
{
    static const char *const vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        uint32_t n = launcher_count(get, vars[i]);
        if (n)
            return n;
    }
    return 0;
}

int tap_parse_job_shape(char *(*get)(const char *), uint32_t *ranks, uint32_t *nodes)
{
    /* Per node: torchrun and Open MPI give the ranks of one node (the
     * same on every node, as they start them); Slurm gives the nodes. */
    static const char *const per_node[][2] = {{"WORLD_SIZE", "LOCAL_WORLD_SIZE"},
                                              {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"}};
    for (size_t i = 0; i < sizeof per_node / sizeof per_node[0]; i++) {
        uint32_t world = launcher_count(get, per_node[i][0]), local = launcher_count(get, per_node[i][1]);
        if (world && local) {
            if (world % local)
                return -1;
            *ranks = world;
            *nodes = world / local;
            return 0;
        }
    }
    uint32_t tasks = launcher_count(get, "SLURM_NTASKS"), slurm_nodes = launcher_count(get, "SLURM_NNODES");
    if (!tasks || !slurm_nodes || slurm_nodes > tasks)
        return -1;
    *ranks = tasks;
    *nodes = slurm_nodes;
    return 0;
}

/* NCCLTAP_OPS_MAX_MB into *mb; whether it was given (and valid). Unset or
 * not valid: TAP_OPS_MAX_MB_DEFAULT, and the writers take the job's share
 * of it (writers/ops_bound.h). */
static bool env_ops_max(uint32_t *mb)
{
    const char *s = getenv("NCCLTAP_OPS_MAX_MB");
    *mb = TAP_OPS_MAX_MB_DEFAULT;
    if (!s || !*s)
        return false;
    if (tap_parse_u32(s, 0, 1u << 20, mb) == 0)
        return true;
    *mb = TAP_OPS_MAX_MB_DEFAULT;
    tap_log("NCCLTAP_OPS_MAX_MB=%s is not valid: expected a whole number from 0 to %u; using the default (%u, "
            "less in a job of more than %u ranks)", s, 1u << 20, TAP_OPS_MAX_MB_DEFAULT,
            TAP_OPS_JOB_MAX_MB / TAP_OPS_MAX_MB_DEFAULT);
    return false;
}

/* NCCLTAP_DIR_MODE: a mode nccltap would make directories with and then
 * refuse to write in is refused here, with the reason. */
static mode_t env_dir_mode(void)
{
    const char *s = getenv("NCCLTAP_DIR_MODE");
    mode_t m;
    if (!s || !*s)
        return TAP_OUT_DIR_MODE_DEFAULT;
    const char *why = tap_out_mode_refusal(s, &m);
    if (!why)
        return m;
    tap_log("NCCLTAP_DIR_MODE=%s is not valid: %s; expected " TAP_OUT_DIR_MODES_ACCEPTED "; using %04o", s, why,
            TAP_OUT_DIR_MODE_DEFAULT);
    return TAP_OUT_DIR_MODE_DEFAULT;
}

/* The key that names one launch, the same on every rank of it: the
 * launcher's job id where there is one. */
static void job_key(char *out, size_t len)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PMIX_NAMESPACE",
                                       "TORCHELASTIC_RUN_ID", "LSB_JOBID"};
    out[0] = 0;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && strcmp(v, "none")) {
            snprintf(out, len, "%s", v);
            return;
        }
    }
}

int tap_job_id_of(char *out, size_t len, char *(*get)(const char *))
{
    static const char *const vars[] = {"NCCLTAP_JOB_ID", "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID"};
    out[0] = 0;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = get(vars[i]);
        if (v && *v) {
            if (strlen(v) >= len)
                return -1;
            snprintf(out, len, "%s", v);
            return 0;
        }
    }
    return 0;
}

/* Levenshtein distance of a and b, each cut to 63 characters (a variable
 * name is shorter). */
static unsigned edit_distance(const char *a, const char *b)
{
    enum { MAX = 63 };
    size_t na = strnlen(a, MAX), nb = strnlen(b, MAX);
    unsigned row[MAX + 1];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= na; i++) {
        unsigned diagonal = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= nb; j++) {
            unsigned replace = diagonal + (a[i - 1] != b[j - 1]), keep = row[j];
            unsigned shorter = (row[j] < row[j - 1] ? row[j] : row[j - 1]) + 1;
            row[j] = replace < shorter ? replace : shorter;
            diagonal = keep;
        }
    }
    return row[nb];
}

/* The known variable nearest to `name` (an environ entry's name, len
 * bytes). */
static const char *nearest_var(const char *name, size_t len)
{
    char cut[64];
    snprintf(cut, sizeof cut, "%.*s", (int)(len < sizeof cut ? len : sizeof cut - 1), name);
    const char *best = known_vars[0];
    unsigned best_d = UINT32_MAX;
    for (size_t i = 0; i < sizeof known_vars / sizeof known_vars[0]; i++) {
        unsigned d = edit_distance(cut, known_vars[i]);
        if (d < best_d) {
            best_d = d;
            best = known_vars[i];
        }
    }
    return best;
}

/* Prefixes of NCCLTAP_* names the shim does not read but nccltap's other
 * programs do: nccltap-bench's (tools/bench/README.md), the GPU suite's
 * (tests/gpu/README.md), the fuzzers' (tests/fuzz/run.sh). */
static const char *const other_programs[] = {"NCCLTAP_BENCH_", "NCCLTAP_GPU_RANKS", "NCCLTAP_RUN_FLAGS",
                                             "NCCLTAP_FUZZ_"};

static bool var_known(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof other_programs / sizeof other_programs[0]; i++)
        if (!strncmp(name, other_programs[i], strlen(other_programs[i])))
            return true;
    for (size_t i = 0; i < sizeof known_vars / sizeof known_vars[0]; i++)
        if (strlen(known_vars[i]) == len && !strncmp(known_vars[i], name, len))
            return true;
    return false;
}

/* One process of the job says what is wrong with the job's names: rank 0
 * of its launcher, or a process no launcher gave a rank. */
static bool speaks_for_job(void)
{
    static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"};
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
        const char *v = getenv(rank_vars[i]);
        if (v && *v)
            return !strcmp(v, "0");
    }
    return true;
}

const char *tap_config_misspelled(const char *entry, size_t *name_len)
{
    const char *eq = strchr(entry, '=');
    size_t len = eq ? (size_t)(eq - entry) : strlen(entry);
    *name_len = len;
    if (strncmp(entry, "NCCLTAP_", 8) || var_known(entry, len))
        return NULL;
    return nearest_var(entry, len);
}

void tap_config_say_misspelled(void)
{
    extern char **environ;
    static atomic_flag said = ATOMIC_FLAG_INIT;
    const char *checked = getenv("NCCLTAP_VARS_CHECKED");
    if ((checked && !strcmp(checked, "1")) || !speaks_for_job() || atomic_flag_test_and_set(&said))
        return;
    for (char **e = environ; e && *e; e++) {
        size_t len;
        const char *nearest = tap_config_misspelled(*e, &len);
        if (nearest)
            tap_log("%.*s is not a variable nccltap reads: did you mean %s? (nccltap help config lists them)",
                    (int)(len < 128 ? len : 128), *e, nearest);
    }
}

/* A relative output directory made absolute against the working
 * directory at load: a program that chdir()s later (or ranks that do so
 * differently) would otherwise write its files elsewhere than where the
 * job started. Left relative where the working directory cannot be said
 * or the whole would not fit. */
static void absolute_dir(char *dir, size_t len)
{
    char cwd[4096];
    if (dir[0] == '/' || !getcwd(cwd, sizeof cwd) || strlen(cwd) + 1 + strlen(dir) >= len)
        return;
    size_t n = strlen(cwd), rel = strlen(dir);
    if (n > 1)
        cwd[n++] = '/';
    memmove(dir + n, dir, rel + 1); /* fits: checked above */
    memcpy(dir, cwd, n);
}

void tap_config_load(void)
{
    struct tap_config *c = &tap_config;
    memset(c, 0, sizeof *c);
    job_key(c->job, sizeof c->job);
    const char *dir = getenv("NCCLTAP_DIR");
    bool dir_too_long = dir && strlen(dir) >= sizeof c->dir;
    if (dir && *dir && !dir_too_long) {
        snprintf(c->dir, sizeof c->dir, "%s", dir);
    } else if (c->job[0]) {
        tap_job_dir_name(c->dir, sizeof c->dir, c->job);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
        snprintf(c->dir, sizeof c->dir, "nccltap-%s", stamp);
    }
    absolute_dir(c->dir, sizeof c->dir);
    if (dir_too_long)
        tap_log("NCCLTAP_DIR is too long (at most %zu characters): writing to %s instead", sizeof c->dir - 1, c->dir);
    const char *lib = getenv("NCCLTAP_NCCL_LIBRARY");
    c->nccl_library = lib && *lib ? lib : NULL;
    c->timing = env_timing();
    c->graph_timing = env_graph_timing();
    c->overhead_pct = env_pct("NCCLTAP_OVERHEAD_PCT", 1.0);
    c->interval_ms = env_u32("NCCLTAP_INTERVAL_MS", 5000, TAP_INTERVAL_MS_MIN, TAP_INTERVAL_MS_MAX);
    c->poll_us = env_u32("NCCLTAP_POLL_US", 1000, 10, 100000);
    c->exit_wait_ms = env_u32("NCCLTAP_EXIT_WAIT_MS", 2000, 0, 600000);
    c->max_inflight = env_u32("NCCLTAP_MAX_INFLIGHT", 65536, 2, 1u << 24);
    c->ring_size = env_u32("NCCLTAP_RING_SIZE", 65536, 16, 1u << 24);
    c->verbose = env_flag("NCCLTAP_VERBOSE", false);
    c->ops_jsonl = env_ops_jsonl();
    c->ops_max_set = env_ops_max(&c->ops_max_mb);
    c->job_world = tap_parse_job_world(getenv);
    c->hang_timeout_s = env_u32("NCCLTAP_HANG_TIMEOUT_S", 300, 0, TAP_HANG_TIMEOUT_S_MAX);
    c->dir_mode = env_dir_mode();
    if (tap_parse_job_shape(getenv, &c->job_ranks, &c->job_nodes) != 0)
        c->job_ranks = c->job_nodes = 0;
    if (!tap_run_id_of_launcher(c->run_id, sizeof c->run_id, getenv))
        tap_run_id_of_process_group(c->run_id, sizeof c->run_id);
    c->lttng = env_lttng();
    c->os_switch = env_os();
    c->callsite_depth = env_u32("NCCLTAP_CALLSITE_DEPTH", 1, 0, TAP_CALLSITE_MAX_DEPTH);
    const char *skip = getenv("NCCLTAP_CALLSITE_SKIP");
    if (skip && strlen(skip) >= sizeof c->callsite_skip)
        tap_log("NCCLTAP_CALLSITE_SKIP is too long (at most %zu characters): no library is skipped",
                sizeof c->callsite_skip - 1);
    else if (skip)
        snprintf(c->callsite_skip, sizeof c->callsite_skip, "%s", skip);
    const char *pyskip = getenv("NCCLTAP_CALLSITE_PYTHON_SKIP");
    if (pyskip && strlen(pyskip) >= sizeof c->python_skip)
        tap_log("NCCLTAP_CALLSITE_PYTHON_SKIP is too long (at most %zu characters): the default, /torch/, is used",
                sizeof c->python_skip - 1);
    snprintf(c->python_skip, sizeof c->python_skip, "%s",
             pyskip && strlen(pyskip) < sizeof c->python_skip ? pyskip : "/torch/");
    const char *prom = getenv("NCCLTAP_PROM_DIR");
    if (prom && strlen(prom) >= sizeof c->prom_dir)
        tap_log("NCCLTAP_PROM_DIR is too long (at most %zu characters): no Prometheus file is written",
                sizeof c->prom_dir - 1);
    else if (prom)
        memcpy(c->prom_dir, prom, strlen(prom) + 1);
    c->prom_keep = env_flag("NCCLTAP_PROM_KEEP", false);
    c->prom_inspector = env_flag("NCCLTAP_PROM_INSPECTOR", true);
    if (tap_job_id_of(c->job_id, sizeof c->job_id, getenv) != 0)
        tap_log("the job id (NCCLTAP_JOB_ID, SLURM_JOB_ID or TORCHELASTIC_RUN_ID) is longer than %zu characters: "
                "the metrics' job_id is empty", sizeof c->job_id - 1);
}

void tap_config_ensure(void)
{
    static pthread_once_t loaded = PTHREAD_ONCE_INIT;
    pthread_once(&loaded, tap_config_load);
}
