/* The writers (preload/writers/), each handed a snapshot and read back
 * from what it wrote: the rank file, the Prometheus textfile, the summary
 * line, the hang file and the per-op outputs' bound. Built from the floors writers and below, as the
 * shim links them. Every value of the snapshot differs from the others, so
 * a field written from the wrong member fails a check.
 * Usage: test_writers (makes and removes a directory under $TMPDIR). */
#define _GNU_SOURCE
#include <glob.h>
#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/monotonic.h"
#include "nccl/nccl_ops.h"
#include "base/process.h"
#include "state/comm_config.h"
#include "state/comm_registry.h"
#include "state/shared.h"
#include "stats/stats.h"
#include "writers/hang_file.h"
#include "writers/ops_bound.h"
#include "writers/output.h"
#include "writers/prom_file.h"
#include "writers/rank_file.h"
#include "writers/snapshot.h"
#include "test.h"

int test_failures;

static char dir[] = "/tmp/nccltap-test-writers-XXXXXX";
static struct tap_comm *alpha, *beta;

/* The oldest ops' calls are set 2.5 s and 7.25 s before the test starts. */
static struct tap_comm_progress progress[] = {
    {.issued = 40, .arrived = 31, .completed = 29, .pending = 19, .oldest_seq = 29,
     .oldest_bytes = (1 << 20) + 5, .oldest_op = TAP_OP_ALLREDUCE},
    {.issued = 50, .arrived = 37, .completed = 36, .pending = 23, .oldest_seq = 36,
     .oldest_bytes = 4096, .oldest_op = TAP_OP_ALLGATHER},
};
static const struct tap_snapshot snap = {
    .counts = {.timed = 7, .failed = 3, .simulated = 2, .pending = 5, .lost = 11},
    .pair_cost_ns = 1234,
    .busy_union_ns = 2500000000ull,
    .busy_sum_ns = 3750000000ull,
    .progress = progress,
    .nprogress = 2,
};

/* Two communicators, 4 calls in rows (3 timed on alpha, 1 untimed on
 * beta), 30 issued; 1 record dropped and 6 untimed counted. */
static void set_up(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    char prom[sizeof dir + 8];
    snprintf(prom, sizeof prom, "%s/prom", dir);
    if (mkdir(prom, 0755) != 0) {
        perror(prom);
        exit(2);
    }
    uint64_t now = tap_monotonic_ns();
    progress[0].oldest_enqueue_ns = now - 2500000000ull;
    progress[1].oldest_enqueue_ns = now - 7250000000ull;
    setenv("NCCLTAP_DIR", dir, 1);
    setenv("NCCLTAP_PROM_DIR", prom, 1);
    setenv("NCCLTAP_VERBOSE", "1", 1);
    setenv("NCCLTAP_HANG_TIMEOUT_S", "42", 1);
    tap_process_init();
    tap_config_load();
    alpha = tap_comm_register((ncclComm_t)0x1000, 0xa1a1a1a1a1a1a1a1ull, 0, TAP_ORIGIN_INIT, "alpha", NULL, 2, 4, 0);
    beta = tap_comm_register((ncclComm_t)0x2000, 0xb2b2b2b2b2b2b2b2ull, 0, TAP_ORIGIN_INIT, "beta", NULL, 1, 8, 0);
    if (!alpha || !beta)
        exit(2);
    atomic_store(&alpha->seq, 21);
    atomic_store(&beta->seq, 9);
    atomic_store(&tap_totals.dropped, 1);
    atomic_store(&tap_totals.untimed, 6);
    for (int i = 0; i < 3; i++) {
        struct tap_op_rec r = {.comm = alpha, .seq = (uint64_t)i, .bytes = 1 << 20, .dtype = 7, .op = TAP_OP_ALLREDUCE};
        struct tap_timing t = {100000 + 1000 * (uint64_t)i, (double)r.bytes, (double)r.bytes * 1.5, false};
        tap_stats_record(&r, 1, &t);
    }
    struct tap_op_rec r = {.comm = beta, .seq = 0, .bytes = 4096, .dtype = 7, .op = TAP_OP_ALLGATHER};
    tap_stats_record(&r, 1, NULL);
}

static json_t *load_json(const char *suffix)
{
    char name[512], path[1024];
    tap_output_name(name, sizeof name, suffix);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc)
        fprintf(stderr, "%s: %s (line %d)\n", path, err.text, err.line);
    return doc;
}

static long long int_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static double number_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *string_at(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static void test_rank_file(void)
{
    CHECK(tap_rank_file_write(&snap, true) == 0);
    json_t *doc = load_json(".json");
    CHECK(doc);
    if (!doc)
        return;
    CHECK(json_is_true(json_object_get(doc, "final")));
    CHECK(int_at(doc, "event_pair_cost_ns") == 1234);
    CHECK(number_at(doc, "nccl_busy_s") == 2.5);
    CHECK(number_at(doc, "nccl_timed_s") == 3.75);
    json_t *totals = json_object_get(doc, "totals");
    CHECK(int_at(totals, "calls") == 30);
    CHECK(int_at(totals, "timed") == 7);
    CHECK(int_at(totals, "failed") == 3);
    CHECK(int_at(totals, "simulated") == 2);
    CHECK(int_at(totals, "pending") == 5);
    CHECK(int_at(totals, "lost") == 11);
    CHECK(int_at(totals, "dropped") == 1);
    CHECK(int_at(totals, "untimed") == 6);
    /* Issued, less those in rows (4), dropped (1), failed (3), simulated (2). */
    CHECK(int_at(totals, "in_flight") == 20);
    json_t *comms = json_object_get(doc, "comms");
    CHECK(json_array_size(comms) == 2);
    json_t *a = json_array_get(comms, 0), *b = json_array_get(comms, 1);
    CHECK(!strcmp(string_at(a, "id"), "a1a1a1a1a1a1a1a1") && !strcmp(string_at(a, "name"), "alpha"));
    CHECK(int_at(a, "rank") == 2 && int_at(a, "nranks") == 4 && int_at(a, "calls") == 21);
    CHECK(!strcmp(string_at(b, "id"), "b2b2b2b2b2b2b2b2") && !strcmp(string_at(b, "name"), "beta"));
    CHECK(int_at(b, "rank") == 1 && int_at(b, "nranks") == 8 && int_at(b, "calls") == 9);
    json_t *ranks = json_object_get(doc, "ranks");
    CHECK(json_array_size(ranks) == 2 && json_integer_value(json_array_get(ranks, 0)) == 1 &&
          json_integer_value(json_array_get(ranks, 1)) == 2);
    json_t *ops = json_object_get(doc, "ops");
    CHECK(json_array_size(ops) == 2);
    json_t *ar = json_array_get(ops, 0), *ag = json_array_get(ops, 1);
    CHECK(!strcmp(string_at(ar, "op"), "AllReduce") && !strcmp(string_at(ar, "comm"), "a1a1a1a1a1a1a1a1"));
    CHECK(int_at(ar, "calls") == 3 && int_at(ar, "timed") == 3 && int_at(ar, "bytes") == 1 << 20);
    CHECK(number_at(ar, "first_us") == 100.0);
    CHECK(int_at(json_object_get(ar, "time_ns"), "count") == 2);
    CHECK(int_at(json_object_get(ar, "time_ns"), "sum") == 203000);
    CHECK(!strcmp(string_at(ag, "op"), "AllGather") && int_at(ag, "calls") == 1 && int_at(ag, "timed") == 0);
    CHECK(json_is_null(json_object_get(json_object_get(ag, "time_us"), "mean")));
    json_decref(doc);
}

/* The file's whole text: one .prom file is expected (no communicator has a
 * GPU, so all go to the process's host-pid file). */
static char *prom_text(void)
{
    char pattern[sizeof dir + 16];
    snprintf(pattern, sizeof pattern, "%s/prom/*.prom", dir);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc != 1) {
        fprintf(stderr, "%s: want one file\n", pattern);
        return NULL;
    }
    FILE *f = fopen(g.gl_pathv[0], "r");
    globfree(&g);
    char *text = calloc(1, 1 << 20);
    if (f && text)
        fread(text, 1, (1 << 20) - 1, f);
    if (f)
        fclose(f);
    return text;
}

/* The value of the series `name` whose labels hold `label` (NULL: any),
 * or -1 when there is none. */
static long long prom_value(const char *text, const char *name, const char *label)
{
    size_t n = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[2048];
        if (len >= sizeof buf || strncmp(line, name, n) || line[n] != '{')
            continue;
        memcpy(buf, line, len);
        buf[len] = 0;
        if (label && !strstr(buf, label))
            continue;
        const char *close = strrchr(buf, '}');
        return close ? strtoll(close + 1, NULL, 10) : -1;
    }
    return -1;
}

/* The same, as a double (0 when there is none). */
static double prom_double(const char *text, const char *name, const char *label)
{
    const char *line = text;
    while ((line = strstr(line, name)) != NULL) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, label);
        if (line[strlen(name)] == '{' && hit && hit < line + len)
            return strtod(memchr(line, '}', len) + 1, NULL);
        line += len;
    }
    return 0;
}

static void test_prom_file(void)
{
    CHECK(tap_prom_write(&snap) == 0);
    char *text = prom_text();
    CHECK(text);
    if (!text)
        return;
    CHECK(prom_value(text, "nccltap_pending_ops", "comm=\"a1a1a1a1a1a1a1a1\"") == 19);
    CHECK(prom_value(text, "nccltap_pending_ops", "comm=\"b2b2b2b2b2b2b2b2\"") == 23);
    CHECK(prom_value(text, "nccltap_pending_ops", "comm_name=\"alpha\"") == 19);
    CHECK(prom_value(text, "nccltap_pending_ops", "rank=\"1\"") == 23);
    CHECK(prom_value(text, "nccltap_comm_issued_ops", "comm_name=\"alpha\"") == 40);
    CHECK(prom_value(text, "nccltap_comm_arrived_ops", "comm_name=\"alpha\"") == 31);
    CHECK(prom_value(text, "nccltap_comm_completed_ops", "comm_name=\"alpha\"") == 29);
    CHECK(prom_value(text, "nccltap_comm_issued_ops", "comm_name=\"beta\"") == 50);
    CHECK(prom_value(text, "nccltap_comm_arrived_ops", "comm_name=\"beta\"") == 37);
    CHECK(prom_value(text, "nccltap_comm_completed_ops", "comm_name=\"beta\"") == 36);
    /* The oldest op's call as a Unix time: its age from now, within the
     * test's own run time; labelled with its op and size class. */
    double now = (double)time(NULL);
    double a = prom_double(text, "nccltap_comm_oldest_pending_timestamp_seconds",
                           "op=\"AllReduce\",size_class=\"1048576\"");
    double b = prom_double(text, "nccltap_comm_oldest_pending_timestamp_seconds",
                           "op=\"AllGather\",size_class=\"4096\"");
    CHECK(now - a > 1.5 && now - a < 60);
    CHECK(b > 0 && a - b > 4.7 && a - b < 4.8);
    CHECK(prom_value(text, "nccltap_dropped_ops_total", NULL) == 1);
    CHECK(prom_value(text, "nccltap_untimed_ops_total", NULL) == 6);
    CHECK(prom_value(text, "nccltap_ops_total", "op=\"AllReduce\"") == 3);
    CHECK(prom_value(text, "nccltap_ops_total", "op=\"AllGather\"") == 1);
    free(text);
}

/* What `fn(arg)` prints on stderr. */
static char *stderr_of(void (*fn)(const void *), const void *arg)
{
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/stderr", dir);
    FILE *f = fopen(path, "w+");
    if (!f)
        return NULL;
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(f), 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *text = calloc(1, 8192);
    rewind(f);
    if (text)
        fread(text, 1, 8191, f);
    fclose(f);
    unlink(path);
    return text;
}

static void print_summary(const void *arg) { tap_print_summary(arg); }

static void test_summary(void)
{
    char *line = stderr_of(print_summary, &snap);
    CHECK(line && strstr(line, "30 NCCL calls on 2 communicators, 7 timed, RECORDS DROPPED: see totals.dropped; output in "));
    CHECK(line && strstr(line, tap_rank_file_path()));
    if (line)
        fprintf(stderr, "summary: %s", line);
    free(line);
}

static void hang_write(const void *arg) { tap_hang_file_write(arg); }

static void test_hang(void)
{
    struct tap_hang_comm comms[2] = {
        {.comm = alpha, .issued = 21, .done_seq = 20},
        {.comm = beta, .issued = 9, .done_seq = 6, .pending = true, .timed = true, .seq = 6, .bytes = 4096,
         .op = TAP_OP_ALLGATHER, .started = true, .age_ns = 2500000000ull},
    };
    struct tap_hang h = {comms, 2, 1, 42000000000ull, 3, .say = true};
    char *line = stderr_of(hang_write, &h);
    CHECK(line && strstr(line, "hang: rank 1 comm b2b2b2b2b2b2b2b2: AllGather seq 6 pending for 2.5 s"));
    free(line);
    /* Between the doublings the file is rewritten, and nothing said. */
    h.say = false;
    line = stderr_of(hang_write, &h);
    CHECK(line && !strstr(line, "hang:"));
    free(line);
    json_t *doc = load_json(".hang.json");
    CHECK(doc);
    if (!doc)
        return;
    CHECK(int_at(doc, "timeout_s") == 42 && int_at(doc, "reports") == 3);
    json_t *stuck = json_object_get(doc, "stuck");
    CHECK(!strcmp(string_at(stuck, "comm"), "b2b2b2b2b2b2b2b2"));
    CHECK(int_at(stuck, "rank") == 1 && int_at(stuck, "nranks") == 8);
    CHECK(int_at(stuck, "issued") == 9 && int_at(stuck, "last_done") == 5);
    json_t *p = json_object_get(stuck, "pending");
    CHECK(int_at(p, "seq") == 6 && int_at(p, "bytes") == 4096 && !strcmp(string_at(p, "op"), "AllGather"));
    CHECK(json_is_true(json_object_get(p, "timed")) && json_is_true(json_object_get(p, "started")));
    CHECK(number_at(p, "pending_s") == 2.5);
    CHECK(json_is_null(json_object_get(p, "site")));
    json_t *all = json_object_get(doc, "comms");
    CHECK(json_array_size(all) == 2);
    json_t *a = json_array_get(all, 0);
    CHECK(!strcmp(string_at(a, "comm"), "a1a1a1a1a1a1a1a1") && int_at(a, "issued") == 21 &&
          int_at(a, "last_done") == 19 && json_is_null(json_object_get(a, "pending")));
    json_decref(doc);
}

static uint64_t ops_bound_mb(bool set, uint32_t mb, uint32_t world)
{
    tap_config.ops_max_set = set;
    tap_config.ops_max_mb = mb;
    tap_config.job_world = world;
    tap_ops_bound_reset();
    return tap_ops_max_bytes() >> 20;
}

/* The per-op outputs' bound (writers/ops_bound.h): the job's 16 GiB
 * shared by its processes unless NCCLTAP_OPS_MAX_MB says, at most 256
 * MiB and at least 1 MiB a process. Last: it registers a communicator. */
static void test_ops_bound(void)
{
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 1000) == 16);       /* 1,000 ranks: 16 GB in all */
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 64) == 256);
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 8) == 256);         /* never more than 256 MiB */
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 100000) == 1);      /* never less than 1 MiB */
    CHECK(ops_bound_mb(true, 3, 1000) == 3);                              /* NCCLTAP_OPS_MAX_MB=3 */
    CHECK(ops_bound_mb(true, 1024, 1000) == 1024);
    CHECK(ops_bound_mb(true, 0, 0) == 0);                                 /* none */
    /* No launcher's world: the largest communicator (alpha 4, beta 8, then 2,048). */
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 0) == 256);
    tap_comm_register((ncclComm_t)0x3000, 0xc3c3c3c3c3c3c3c3ull, 0, TAP_ORIGIN_INIT, "gamma", NULL, 0, 2048, 0);
    CHECK(ops_bound_mb(false, TAP_OPS_MAX_MB_DEFAULT, 0) == 8);
    /* Decided once: a larger communicator later does not change it. */
    tap_config.job_world = 16384;
    CHECK(tap_ops_max_bytes() >> 20 == 8);
}

/* The rank file's text, malloc'ed ("" when unreadable). */
/* NCCL's parameter API as a 2.30.3 NCCL answers it: two published keys,
 * unsorted, their values in buffers of its own. */
static const char *fake_keys[] = { "NCCL_PROTO", "NCCL_BUFFSIZE" };

static ncclResult_t fake_param_keys(const char ***table, int *len)
{
    *table = fake_keys;
    *len = 2;
    return ncclSuccess;
}

static ncclResult_t fake_param_get(const char *key, const char **value, int *len)
{
    static char held[64];
    snprintf(held, sizeof held, "secret-param-%s", key);
    *value = held;
    *len = (int)strlen(held);
    return ncclSuccess;
}

static const struct tap_param_api fake_params = { fake_param_keys, fake_param_get };

static char *rank_file_text(void)
{
    char name[512], path[1024];
    tap_output_name(name, sizeof name, ".json");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        text = calloc(1, 1 << 20);
        len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
    }
    (void)len;
    return text ? text : calloc(1, 1);
}

/* What a communicator was created with (state/comm_config.h): a versioned
 * config read only as far as its size and version have fields; the
 * NCCL_* names with hashes of their values, never the values, sorted,
 * one value under two names hashed apart; both in the rank file. */
static void test_comm_config(void)
{
    struct tap_comm_config c;
    tap_comm_config_read(&c, NULL);
    CHECK(!c.given && c.blocking == TAP_CONFIG_UNSET && c.traffic_class == TAP_CONFIG_UNSET && !c.net_name[0]);
    /* 2.18's struct: up to splitShare; trafficClass past its size is not read. */
    ncclConfig_t cfg = { .size = offsetof(ncclConfig_t, trafficClass), .version = 21800, .blocking = 0,
                         .cgaClusterSize = INT_MIN, .minCTAs = 4, .maxCTAs = 16, .netName = "IB", .splitShare = 1,
                         .trafficClass = 99 };
    tap_comm_config_read(&c, &cfg);
    CHECK(c.given && c.version == 21800 && c.blocking == 0 && c.cga_cluster_size == TAP_CONFIG_UNSET &&
          c.min_ctas == 4 && c.max_ctas == 16 && c.split_share == 1 && c.traffic_class == TAP_CONFIG_UNSET &&
          !strcmp(c.net_name, "IB"));
    cfg.size = sizeof cfg;
    cfg.version = 22600;  /* trafficClass: 2.26 */
    tap_comm_config_read(&c, &cfg);
    CHECK(c.traffic_class == 99);

    setenv("NCCL_ZZ_TEST", "secret-value-1", 1);
    setenv("NCCL_AA_TEST", "secret-value-1", 1);
    tap_nccl_env_reset();
    CHECK(!tap_nccl_env()->read && !tap_nccl_params()->read);
    tap_nccl_env_snapshot(&fake_params);
    const struct tap_nccl_env *e = tap_nccl_env(), *p = tap_nccl_params();
    /* The effective parameters: sorted by key, hashed, never the values. */
    CHECK(p->read && p->n == 2 && !strcmp(p->vars[0].name, "NCCL_BUFFSIZE") &&
          !strcmp(p->vars[1].name, "NCCL_PROTO") && p->vars[0].hash != p->vars[1].hash);
    CHECK(!memmem(p, sizeof *p, "secret-param", 12));
    const struct tap_nccl_var *aa = NULL, *zz = NULL;
    for (unsigned i = 0; i < e->n; i++) {
        CHECK(!i || strcmp(e->vars[i - 1].name, e->vars[i].name) < 0);
        aa = !strcmp(e->vars[i].name, "NCCL_AA_TEST") ? &e->vars[i] : aa;
        zz = !strcmp(e->vars[i].name, "NCCL_ZZ_TEST") ? &e->vars[i] : zz;
    }
    CHECK(e->read && aa && zz && aa->hash != zz->hash && aa < zz);
    CHECK(!memmem(e, sizeof *e, "secret-value", 12));
    uint64_t before = aa ? aa->hash : 0;
    setenv("NCCL_AA_TEST", "secret-value-2", 1);  /* read once: a later change is not seen... */
    tap_nccl_env_snapshot(&fake_params);
    CHECK(aa && aa->hash == before);
    tap_nccl_env_reset();  /* ...until a forked child reads its own */
    tap_nccl_env_snapshot(NULL);  /* an NCCL without the parameter API */
    CHECK(!tap_nccl_params()->read);
    tap_nccl_env_reset();
    tap_nccl_env_snapshot(&fake_params);
    for (unsigned i = 0; i < e->n; i++)
        if (!strcmp(e->vars[i].name, "NCCL_AA_TEST"))
            CHECK(e->vars[i].hash != before);

    tap_comm_config_read(&c, &cfg);
    cfg.blocking = 1;  /* after the read: the communicator keeps what its creation was given */
    CHECK(tap_comm_register((ncclComm_t)0x4000, 0xd4d4d4d4d4d4d4d4ull, 0, TAP_ORIGIN_CONFIG, "delta", &c, 0, 2, 0));
    CHECK(tap_rank_file_write(&snap, true) == 0);
    char *text = rank_file_text();
    CHECK(!strstr(text, "secret-value") && !strstr(text, "secret-param"));
    free(text);
    json_t *doc = load_json(".json");
    json_t *env = json_object_get(doc, "nccl_env"), *vars = json_object_get(env, "vars");
    CHECK(json_is_true(json_object_get(env, "read")) && int_at(env, "not_kept") == 0);
    bool found = false;
    for (size_t i = 0; i < json_array_size(vars); i++) {
        json_t *v = json_array_get(vars, i);
        if (!strcmp(string_at(v, "name"), "NCCL_ZZ_TEST"))
            found = strlen(string_at(v, "hash")) == 16;
    }
    CHECK(found);
    json_t *params = json_object_get(doc, "nccl_params"), *pvars = json_object_get(params, "vars");
    CHECK(json_is_true(json_object_get(params, "read")) && json_array_size(pvars) == 2 &&
          !strcmp(string_at(json_array_get(pvars, 1), "name"), "NCCL_PROTO"));
    json_t *comms = json_object_get(doc, "comms"), *delta = NULL;
    for (size_t i = 0; i < json_array_size(comms); i++)
        if (!strcmp(string_at(json_array_get(comms, i), "name"), "delta"))
            delta = json_array_get(comms, i);
    json_t *dc = json_object_get(delta, "config");
    CHECK(dc && int_at(dc, "version") == 22600 && int_at(dc, "blocking") == 0 && int_at(dc, "traffic_class") == 99 &&
          json_is_null(json_object_get(dc, "cga_cluster_size")) && !strcmp(string_at(dc, "net_name"), "IB"));
    CHECK(json_is_null(json_object_get(json_array_get(comms, 0), "config")));  /* alpha: no config given */
    json_decref(doc);
}

int main(void)
{
    set_up();
    test_rank_file();
    test_prom_file();
    test_summary();
    test_hang();
    test_ops_bound();
    test_comm_config();
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!test_failures && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    printf("%s: %d failed checks\n", test_failures ? "FAIL" : "ok", test_failures);
    return test_failures != 0;
}
