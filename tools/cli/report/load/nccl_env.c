/* A rank file's "nccl_env" (preload/state/comm_config.h): the process's
 * NCCL_* variable names, each with a hash of its value, as its first
 * communicator's creation found them. Kept by name, for the settings
 * analysis (analyze/settings.h). */
#include "load.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More than the shim keeps (128): a damaged file. */
#define NCCL_ENV_MAX 4096

static int cmp_var(const void *a, const void *b)
{
    return strcmp(((const struct env_var *)a)->name, ((const struct env_var *)b)->name);
}

int report_load_nccl_env(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    json_t *e = json_object_get(root, "nccl_env");
    if (!e)
        return 0;  /* an older shim */
    json_t *read = json_object_get(e, "read"), *vars = json_object_get(e, "vars");
    if (!json_is_object(e) || !json_is_boolean(read) || !json_is_array(vars) ||
        json_array_size(vars) > NCCL_ENV_MAX) {
        snprintf(why, why_len, "\"nccl_env\" is not {\"read\": bool, \"vars\": [at most %d]}", NCCL_ENV_MAX);
        return -1;
    }
    /* Past the shim's bound it kept the first variables in environ's
     * order, which differs between processes: a variable it left out
     * would read as unset there. Such a process's variables are not
     * compared (its config fields are). */
    json_t *not_kept = json_object_get(e, "not_kept");
    f->env_read = json_is_true(read) && !(json_is_integer(not_kept) && json_integer_value(not_kept) > 0);
    f->config_read = true;
    f->env = report_alloc(r, (json_array_size(vars) + 1) * sizeof *f->env);
    f->nenv = 0;
    size_t i;
    json_t *v;
    json_array_foreach(vars, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *hash = json_string_value(json_object_get(v, "hash"));
        char *end = NULL;
        unsigned long long h = hash ? strtoull(hash, &end, 16) : 0;
        if (!name || !hash || strlen(hash) != 16 || !end || *end) {
            snprintf(why, why_len, "\"nccl_env\".vars[%zu] is not {\"name\": string, \"hash\": 16 hex digits}", i);
            return -1;
        }
        f->env[f->nenv++] = (struct env_var){ report_intern(r, name), h };
    }
    if (f->nenv)  /* qsort wants an array, even of nothing */
        qsort(f->env, f->nenv, sizeof *f->env, cmp_var);
    return 0;
}
