/* Call sites across ranks: the sites of every process merged by what they
 * are (the same frames, as library and offset, issuing the same op), ranked
 * by the NCCL time spent there, as mpiP ranks MPI call sites. They read the
 * document model and compute; they never read files or format text.
 * callsites.c */
#ifndef NCCLTAP_CLI_REPORT_CALLSITES_H
#define NCCLTAP_CLI_REPORT_CALLSITES_H

#include "model.h"

/* One call site merged over the processes that have it. */
struct site_summary {
    const struct callsite *first;  /* its frames, as the first process had them */
    const char *op;                /* interned */
    size_t nprocs;                 /* processes that made calls there */
    uint64_t calls, timed, t_sum, bytes_total;
    double time_ns;   /* NCCL time: each row's calls there x its mean time, over its group size */
    double share;     /* time_ns over the run's NCCL time (the same sum over every op row), 0..1 */
    double busbw_gbs; /* over its timed calls; 0 when none was timed */
};

/* A statistics row's key and a site that made calls of it. */
struct site_use {
    const char *comm, *op, *dtype;  /* interned */
    uint64_t size_class;
    size_t site;                    /* index into callsite_summary.sites */
};

struct callsite_summary {
    int depth;                   /* the largest NCCLTAP_CALLSITE_DEPTH of the files; 0: none */
    uint64_t python_unread;      /* calls whose Python frame could not be read, all files */
    struct site_summary *sites;  /* by time, then calls, descending */
    size_t nsites;
    struct site_use *uses;       /* sorted by key, then site */
    size_t nuses;
};

void report_callsites(const struct report *r, struct callsite_summary *out);

/* Orders sites by their frames: 0 when each frame is at the same offset of
 * the same object (ranks of one binary load it at different addresses); a
 * frame outside every known object compares by address. */
int callsite_cmp_frames(const struct callsite *a, const struct callsite *b);
void callsite_summary_free(struct callsite_summary *s);

#endif
