#include "writers/prom_inspector.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "state/comm_nodes.h"
#include "state/comm_registry.h"
#include "nccl/nccl_ops.h"
#include "writers/prom_text.h"

struct key_agg {
    const struct tap_comm *comm; /* the first seen: its GPU, name and nranks */
    uint8_t op;
    uint64_t size_lower;         /* Inspector's bucket, by its lower bound */
    uint64_t count;
    double time_us_sum;
    double log_busbw_sum;        /* for the geometric mean, as Inspector */
    uint64_t busbw_count;        /* ops with a busbw above 0 */
};

#define SLOTS (2 * TAP_PROM_INSPECTOR_KEYS) /* open addressing, at most half full */

static struct key_agg *keys;
static unsigned nkeys;
static unsigned *slot_of; /* slot -> key index + 1, 0 empty */
static uint64_t overflow;

/* Inspector's labels: communicators with the same GPU, name and nranks
 * make one series, as in Inspector's files. */
static bool same_series(const struct tap_comm *a, const struct tap_comm *b)
{
    return a == b || (a->nranks == b->nranks && !strcmp(a->gpu_uuid, b->gpu_uuid) && !strcmp(a->name, b->name));
}

static uint64_t key_hash(const struct tap_comm *c, int op, uint64_t lower)
{
    uint64_t h = tap_hash(TAP_HASH_SEED, c->gpu_uuid, strlen(c->gpu_uuid));
    h = tap_hash(h, c->name, strlen(c->name));
    h ^= (uint64_t)(uint32_t)c->nranks * 0x9e3779b97f4a7c15ull ^ ((uint64_t)op << 56) ^ lower;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

void tap_prom_inspector_observe(const struct tap_completion *c)
{
    if (!keys) {
        keys = calloc(TAP_PROM_INSPECTOR_KEYS, sizeof *keys);
        slot_of = calloc(SLOTS, sizeof *slot_of);
        if (!keys || !slot_of) {
            free(keys);
            free(slot_of);
            keys = NULL;
            slot_of = NULL;
            overflow++;
            return;
        }
    }
    char label[32];
    const struct tap_op_rec *op = c->op;
    uint64_t lower = tap_prom_inspector_size(op->bytes, label, sizeof label);
    unsigned i = (unsigned)key_hash(op->comm, op->op, lower) & (SLOTS - 1);
    struct key_agg *k = NULL;
    for (; slot_of[i]; i = (i + 1) & (SLOTS - 1)) {
        struct key_agg *e = &keys[slot_of[i] - 1];
        if (e->op == op->op && e->size_lower == lower && same_series(e->comm, op->comm)) {
            k = e;
            break;
        }
    }
    if (!k) {
        if (nkeys == TAP_PROM_INSPECTOR_KEYS) {
            overflow++;
            return;
        }
        k = &keys[nkeys];
        memset(k, 0, sizeof *k);
        k->comm = op->comm;
        k->op = op->op;
        k->size_lower = lower;
        slot_of[i] = ++nkeys;
    }
    k->count++;
    k->time_us_sum += (double)c->duration_ns * 1e-3;
    if (c->busbw_gbs > 0) {
        k->log_busbw_sum += log(c->busbw_gbs);
        k->busbw_count++;
    }
}

/* Inspector's spelling of an op (ncclFuncToString): its own for AlltoAll,
 * NCCL's otherwise. */
static const char *inspector_op_name(int op)
{
    return op == TAP_OP_ALLTOALL ? "All2All" : tap_op_name((enum tap_op)op);
}

static void write_labels(FILE *f, const struct key_agg *k, const char *node, const char *job, const char *pid)
{
    char size[32], nranks[16], n_nodes[16] = "unknown";
    tap_prom_inspector_size(k->size_lower, size, sizeof size);
    snprintf(nranks, sizeof nranks, "%d", k->comm->nranks);
    int nodes = tap_comm_nodes(k->comm);
    if (nodes > 0)
        snprintf(n_nodes, sizeof n_nodes, "%d", nodes);
    tap_prom_label(f, "{", "slurm_job_id", *job ? job : "unknown");
    tap_prom_label(f, ",", "node", *node ? node : "unknown");
    tap_prom_label(f, ",", "gpu", *k->comm->gpu_uuid ? k->comm->gpu_uuid : "unknown");
    tap_prom_label(f, ",", "comm_name", *k->comm->name ? k->comm->name : "unknown");
    tap_prom_label(f, ",", "n_nodes", n_nodes);
    tap_prom_label(f, ",", "nranks", nranks);
    tap_prom_label(f, ",", tap_op_is_p2p(k->op) ? "p2p_operation" : "collective", inspector_op_name(k->op));
    tap_prom_label(f, ",", "message_size", size);
    if (pid && *pid)
        tap_prom_label(f, ",", "pid", pid);
    fputs("} ", f);
}

static void write_family(FILE *f, const char *gpu_uuid, bool p2p, bool busbw, const char *name,
                         const char *help, const char *node, const char *job, const char *pid)
{
    tap_prom_family(f, name, "gauge", help);
    for (unsigned i = 0; i < nkeys; i++) {
        const struct key_agg *k = &keys[i];
        if (tap_op_is_p2p(k->op) != p2p || strcmp(k->comm->gpu_uuid, gpu_uuid))
            continue;
        fputs(name, f);
        write_labels(f, k, node, job, pid);
        if (busbw)
            tap_prom_value(f, k->busbw_count ? exp(k->log_busbw_sum / (double)k->busbw_count) : 0);
        else
            tap_prom_value(f, k->time_us_sum / (double)k->count);
        fputc('\n', f);
    }
}

void tap_prom_inspector_write(FILE *f, const char *gpu_uuid, const char *node, const char *slurm_job_id,
                              const char *pid)
{
    write_family(f, gpu_uuid, false, true, "nccl_bus_bandwidth_gbs",
                 "NCCL Inspector compatible: geometric mean busbw (GB/s) of the collectives completed in the last "
                 "interval", node, slurm_job_id, pid);
    write_family(f, gpu_uuid, false, false, "nccl_collective_exec_time_microseconds",
                 "NCCL Inspector compatible: mean time (us) of the collectives completed in the last interval",
                 node, slurm_job_id, pid);
    write_family(f, gpu_uuid, true, true, "nccl_p2p_bus_bandwidth_gbs",
                 "NCCL Inspector compatible: geometric mean busbw (GB/s) of the sends and receives completed in the "
                 "last interval", node, slurm_job_id, pid);
    write_family(f, gpu_uuid, true, false, "nccl_p2p_exec_time_microseconds",
                 "NCCL Inspector compatible: mean time (us) of the sends and receives completed in the last interval",
                 node, slurm_job_id, pid);
}

void tap_prom_inspector_next_interval(void)
{
    if (slot_of)
        memset(slot_of, 0, SLOTS * sizeof *slot_of);
    nkeys = 0;
}

uint64_t tap_prom_inspector_overflow(void)
{
    return overflow;
}

void tap_prom_inspector_reset(void)
{
    /* The parent's table stays allocated; the child starts empty. */
    keys = NULL;
    slot_of = NULL;
    nkeys = 0;
    overflow = 0;
}
