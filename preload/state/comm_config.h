/* What a communicator was created with, beyond its identity: the NCCL_*
 * environment of the process and the ncclConfig_t passed to its creation,
 * so that the report can name settings that differ between the ranks of
 * a communicator (a rank with another NCCL_PROTO, another blocking mode).
 *
 * The environment is read once per process image, at its first
 * communicator's creation (NCCL reads and caches its own variables at its
 * first init too), on the creating thread, never on the hot path. Only
 * names and a hash of each value are kept: values can carry secrets. The
 * shim never writes the environment; reading it races only with an
 * application thread calling setenv meanwhile, as NCCL's own reading does.
 * A forked child reads its own again (tap_nccl_env_reset). */
#ifndef NCCLTAP_COMM_CONFIG_H
#define NCCLTAP_COMM_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/nccl_abi.h"

/* NCCL_* variables kept, and the longest name kept whole. */
#define TAP_NCCL_ENV_MAX 128
#define TAP_NCCL_ENV_NAME_MAX 64

struct tap_nccl_var {
    char name[TAP_NCCL_ENV_NAME_MAX];  /* NUL-terminated; longer names cut (and `cut` set) */
    uint64_t hash;                     /* FNV-1a of the value, seeded by the name */
};

struct tap_nccl_env {
    bool read;                         /* taken: a communicator was created */
    unsigned n;                        /* vars[0..n), sorted by name */
    unsigned more;                     /* NCCL_* variables past TAP_NCCL_ENV_MAX, not kept */
    struct tap_nccl_var vars[TAP_NCCL_ENV_MAX];
};

/* NCCL's parameter API (2.30.3+), passed down from the layer that
 * resolves NCCL: both NULL where the NCCL in use lacks it. */
struct tap_param_api {
    ncclResult_t (*keys)(const char ***table, int *len);
    ncclResult_t (*get)(const char *key, const char **value, int *len);
};

/* Takes the snapshot if this process image has none yet: the NCCL_*
 * environment and, through `api`, the effective value of each parameter
 * NCCL publishes (its defaults and what its environment plugin gave,
 * which the environment does not show: a rank with another NCCL build
 * differs there alone); names and hashes only. Thread-safe; cold path. */
void tap_nccl_env_snapshot(const struct tap_param_api *api);
/* The snapshot (read false before any communicator). Not changed once read. */
const struct tap_nccl_env *tap_nccl_env(void);
/* The effective parameters (read false where NCCL has no parameter API,
 * or before any communicator). Not changed once read. */
const struct tap_nccl_env *tap_nccl_params(void);
/* In a forked child: its environment may differ from its parent's. */
void tap_nccl_env_reset(void);

/* A field NCCL's config leaves undefined (NCCL_CONFIG_UNDEF_INT), or one
 * its version does not have. */
#define TAP_CONFIG_UNSET INT_MIN

/* The fields of the ncclConfig_t a communicator was created with that
 * nccltap knows (the struct is versioned: those its size and version
 * have; 2.27's layout, abi/nccl_abi.h). */
struct tap_comm_config {
    bool given;                /* a config was passed: InitRankConfig, Split... */
    unsigned version;          /* its NCCL_VERSION_CODE */
    int blocking, cga_cluster_size, min_ctas, max_ctas, split_share, traffic_class;
    char net_name[32];         /* "" when unset */
};

/* No config given. */
#define TAP_COMM_CONFIG_NONE                                                                              \
    ((struct tap_comm_config){ .blocking = TAP_CONFIG_UNSET, .cga_cluster_size = TAP_CONFIG_UNSET,           \
                               .min_ctas = TAP_CONFIG_UNSET, .max_ctas = TAP_CONFIG_UNSET,                 \
                               .split_share = TAP_CONFIG_UNSET, .traffic_class = TAP_CONFIG_UNSET })

/* Reads *config (NULL: none given) into *out. Cold path. */
void tap_comm_config_read(struct tap_comm_config *out, const ncclConfig_t *config);

#endif
