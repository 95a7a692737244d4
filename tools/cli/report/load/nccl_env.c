/* A rank file's "nccl_env" (preload/state/comm_config.h): the process's
 * NCCL_* variable names, each with a hash of its value, as its first
 * communicator's creation found them; and its "nccl_params", NCCL's
 * effective parameters then (2.30.3's parameter API), alike. Kept by
 * name, for the settings analysis (analyze/settings.h). */
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

/* One list of names and hashes, "nccl_env" or "nccl_params", into *out
 * (*n of them); *read_all whether it says them all (false: none, or past
 * the shim's bound). 0, or -1 with *why. */
static int load_vars(struct report *r, json_t *root, const char *key, struct env_var **out, size_t *n, bool *read_all,
                     char *why, size_t why_len)
{
    json_t *e = json_object_get(root, key);
    *read_all = false;
    *n = 0;
    if (!e)
        return 0;  /* an older shim */
    json_t *read = json_object_get(e, "read"), *vars = json_object_get(e, "vars");
    if (!json_is_object(e) || !json_is_boolean(read) || !json_is_array(vars) ||
        json_array_size(vars) > NCCL_ENV_MAX) {
        snprintf(why, why_len, "\"%s\" is not {\"read\": bool, \"vars\": [at most %d]}", key, NCCL_ENV_MAX);
        return -1;
    }
    /* Past the shim's bound it kept the first variables in environ's
     * order, which differs between processes: a variable it left out
     * would read as unset there. Such a process's variables are not
     * compared (its config fields are). */
    json_t *not_kept = json_object_get(e, "not_kept");
    *read_all = json_is_true(read) && !(json_is_integer(not_kept) && json_integer_value(not_kept) > 0);
    *out = report_alloc(r, (json_array_size(vars) + 1) * sizeof **out);
    size_t i;
    json_t *v;
    json_array_foreach(vars, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *hash = json_string_value(json_object_get(v, "hash"));
        char *end = NULL;
        unsigned long long h = hash ? strtoull(hash, &end, 16) : 0;
        if (!name || !hash || strlen(hash) != 16 || !end || *end) {
            snprintf(why, why_len, "\"%s\".vars[%zu] is not {\"name\": string, \"hash\": 16 hex digits}", key, i);
            return -1;
        }
        (*out)[(*n)++] = (struct env_var){ report_intern(r, name), h };
    }
    if (*n)  /* qsort wants an array, even of nothing */
        qsort(*out, *n, sizeof **out, cmp_var);
    return 0;
}

int report_load_nccl_env(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    if (!json_object_get(root, "nccl_env"))
        return 0;  /* an older shim */
    f->config_read = true;
    if (load_vars(r, root, "nccl_env", &f->env, &f->nenv, &f->env_read, why, why_len) != 0)
        return -1;
    return load_vars(r, root, "nccl_params", &f->params, &f->nparams, &f->params_read, why, why_len);
}
