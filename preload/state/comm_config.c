#include "state/comm_config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "state/comm_registry.h"

static struct tap_nccl_env env, params;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool env_read;  /* env is complete: readers need no lock */

static int cmp_var(const void *a, const void *b)
{
    return strcmp(((const struct tap_nccl_var *)a)->name, ((const struct tap_nccl_var *)b)->name);
}

/* One name's entry: the name (cut to fit) and the hash of its value,
 * seeded by the name, so that one value under two names hashes apart. */
static void keep(struct tap_nccl_env *into, const char *name, size_t len, const char *value, size_t value_len)
{
    if (into->n == TAP_NCCL_ENV_MAX) {
        into->more++;
        return;
    }
    struct tap_nccl_var *v = &into->vars[into->n++];
    if (len >= sizeof v->name)
        len = sizeof v->name - 1;
    memcpy(v->name, name, len);
    v->name[len] = '\0';
    v->hash = tap_hash(tap_hash(TAP_HASH_SEED, v->name, len), value, value_len);
}

/* NCCL's published parameters, where it has the API: the table and each
 * value are NCCL's thread-local buffers, copied (hashed) at once. */
static void take_params(const struct tap_param_api *api)
{
    memset(&params, 0, sizeof params);
    const char **keys = NULL;
    int n = 0;
    if (!api || !api->keys || !api->get || api->keys(&keys, &n) != ncclSuccess || !keys || n < 0)
        return;
    for (int i = 0; i < n; i++) {
        const char *value = NULL;
        int len = 0;
        if (keys[i] && api->get(keys[i], &value, &len) == ncclSuccess && value && len >= 0)
            keep(&params, keys[i], strlen(keys[i]), value, (size_t)len);
    }
    if (params.n)
        qsort(params.vars, params.n, sizeof *params.vars, cmp_var);
    params.read = true;
}

static void take(void)
{
    extern char **environ;
    memset(&env, 0, sizeof env);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "NCCL_", 5) != 0 || !eq)
            continue;
        keep(&env, *e, (size_t)(eq - *e), eq + 1, strlen(eq + 1));
    }
    if (env.n)  /* qsort wants an array, even of nothing */
        qsort(env.vars, env.n, sizeof *env.vars, cmp_var);
    env.read = true;
}

void tap_nccl_env_snapshot(const struct tap_param_api *api)
{
    if (atomic_load_explicit(&env_read, memory_order_acquire))
        return;
    pthread_mutex_lock(&env_lock);
    if (!atomic_load_explicit(&env_read, memory_order_relaxed)) {
        take();
        take_params(api);
        atomic_store_explicit(&env_read, true, memory_order_release);
    }
    pthread_mutex_unlock(&env_lock);
}

const struct tap_nccl_env *tap_nccl_env(void)
{
    static const struct tap_nccl_env none;
    return atomic_load_explicit(&env_read, memory_order_acquire) ? &env : &none;
}

const struct tap_nccl_env *tap_nccl_params(void)
{
    static const struct tap_nccl_env none;
    return atomic_load_explicit(&env_read, memory_order_acquire) ? &params : &none;
}

void tap_nccl_env_reset(void)
{
    pthread_mutex_init(&env_lock, NULL);  /* the parent's other threads are gone */
    atomic_store(&env_read, false);
}

/* Whether *config has the field that ends at `end` (offsetof + size). */
static bool has(const ncclConfig_t *config, size_t end)
{
    return config->size >= end;
}

#define FIELD(config, f) (has((config), offsetof(ncclConfig_t, f) + sizeof (config)->f) ? (config)->f \
                                                                                        : TAP_CONFIG_UNSET)

void tap_comm_config_read(struct tap_comm_config *out, const ncclConfig_t *config)
{
    *out = TAP_COMM_CONFIG_NONE;
    if (!config)
        return;
    out->given = true;
    out->version = config->version;
    out->blocking = FIELD(config, blocking);
    out->cga_cluster_size = FIELD(config, cgaClusterSize);
    out->min_ctas = FIELD(config, minCTAs);
    out->max_ctas = FIELD(config, maxCTAs);
    out->split_share = FIELD(config, splitShare);
    if (config->version >= 22600)  /* trafficClass: 2.26 */
        out->traffic_class = FIELD(config, trafficClass);
    if (has(config, offsetof(ncclConfig_t, netName) + sizeof config->netName) && config->netName)
        tap_utf8_copy(out->net_name, sizeof out->net_name, config->netName);
}
