/* Settings drift: NCCL settings that differ between the ranks of one
 * communicator. The ranks must agree on protocol, algorithm, channels and
 * transports; an NCCL_PROTO or NCCL_ALGO set on one node only, or a
 * communicator created blocking on some ranks and not on others, hangs or
 * slows the job, and after a mismatched call it is the commonest cause of
 * NCCL hangs users report.
 *
 * From the rank files: each process's NCCL_* environment when its first
 * communicator was created (names, value hashes: the values are never
 * written), NCCL's effective parameters then (NCCL 2.30.3's parameter
 * API: its defaults and its environment plugin's values, which the
 * environment does not show; a name whose variable already differs is
 * not said again) and the ncclConfig_t each communicator's creation was
 * given.
 * A variable set on some ranks and not on others, or to different values,
 * differs; so does a config field. NCCL_DEBUG, NCCL_DEBUG_SUBSYS and
 * NCCL_DEBUG_FILE are left out: they change NCCL's logging, not what it
 * does. Ranks whose files do not say (older shims, traces) are left out.
 * A value held by every rank of one host and by no other rank is said to
 * be that host's (a setting that differs between hosts: a node's profile).
 *
 * Invariants: v by comm, then its variables by name, then its config
 * fields; each setting's values with the most
 * ranks first (ties: the lowest rank); a rank once per communicator (a
 * process holding two ranks of one communicator is not modelled: its
 * first). It prints nothing. settings.c */
#ifndef NCCLTAP_CLI_REPORT_SETTINGS_H
#define NCCLTAP_CLI_REPORT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* One value a setting has, and the ranks that have it. */
struct setting_value {
    bool set;                /* false: unset on these ranks */
    uint64_t hash;           /* env: the value's hash */
    int number;              /* config: the field's value (set) */
    const char *text;        /* config net_name (interned) */
    int *ranks;              /* ascending */
    size_t nranks;
    const struct rank_file *file;  /* the process of ranks[0] */
    /* Between hosts: its ranks are all on this host, and no rank with
     * another value is (interned); NULL otherwise. */
    const char *host_apart;
};

/* One setting that differs on a communicator. */
struct setting_diff {
    uint64_t comm;
    bool env;                /* an NCCL_* variable; false: a config field */
    bool effective;          /* env: NCCL's effective parameter (its parameter API, 2.30.3+),
                                where the environment agrees: a default of another
                                NCCL build, a value its environment plugin gave */
    const char *name;        /* "NCCL_PROTO", or the config field ("blocking"); interned or static */
    struct setting_value *values;  /* nvalues >= 2 */
    size_t nvalues;
};

struct settings_drift {
    struct setting_diff *v;
    size_t n;
    size_t comms;            /* communicators compared (two ranks or more that say) */
};

/* The evidence of a SETTINGS finding (settings_finding.c fills it): the
 * finding's own figures, beside the culprit and place every finding has
 * (finding.h).
 * The finding's culprit is the first rank of the setting's second most
 * common value; its place the communicator. */
struct settings_evidence {
    const struct setting_diff *setting;  /* the communicator's first setting that differs */
    size_t differing;        /* its settings that differ */
    size_t more_comms;       /* the other communicators where that variable differs at that process
                                alike (not named again) */
};

void settings_analyze(const struct report *r, struct settings_drift *out);
void settings_drift_free(struct settings_drift *d);

#endif
