/* The header of the launcher mode's id file (rdv_file.c): who wrote it,
 * so that a rank can tell this run's file from one a killed run left
 * under the same name. Its ncclUniqueIds follow it. Any thread. */
#ifndef NCCLTAP_BENCH_ID_FILE_H
#define NCCLTAP_BENCH_ID_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ID_MAGIC "NCCLTAB2" /* "NCCLTAPB" was the format without the writer */

/* Fixed layout, the same on every host of a job (one architecture). */
struct id_header {
    char magic[8];
    int32_t world;           /* ranks */
    int32_t nids;            /* communicators: the ids that follow */
    int32_t pid;             /* of rank 0, the writer */
    int32_t reserved;
    uint64_t start_ticks;    /* when that process started, in clock ticks after boot (proc(5) starttime) */
    int64_t written_unix_s;  /* when the file was written, by the writer's clock */
    char boot_id[40];        /* the writer's boot (/proc/sys/kernel/random/boot_id), "" unknown */
    char pid_ns[40];         /* the writer's pid namespace (/proc/self/ns/pid), "" unknown */
};

/* h describes this process, the writer of an id file of `world` ranks and
 * `nids` communicators. */
void id_header_fill(struct id_header *h, int world, int nids);

/* Whether h is a header of this format (magic, sizes in range, strings
 * ended). */
bool id_header_valid(const struct id_header *h);

/* Whether the file h heads cannot be this run's: its writer, on this
 * host's boot and in this pid namespace, is gone (or its pid is another
 * process now); or, written elsewhere, it is older than timeout_s (rank 0
 * gives up waiting for the others after that: --timeout). Says why in
 * why[len] when it is stale. */
bool id_file_stale(const struct id_header *h, int timeout_s, char *why, size_t len);

#endif
