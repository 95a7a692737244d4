/* The simulated NCCL's knobs, read once from the environment (their
 * names, defaults and ranges: sim_knobs.def; what each one means:
 * README.md, Knobs, and `nccltap help sim`). */
#ifndef NCCLSIM_NCCL_KNOBS_H
#define NCCLSIM_NCCL_KNOBS_H

struct sim_knobs {
    double lat_us;         /* NCCLSIM_LAT_US */
    double busbw_gbs;      /* NCCLSIM_BUSBW_GBS */
    int slow_rank;         /* NCCLSIM_SLOW_RANK, -1: none */
    double slow_us;        /* NCCLSIM_SLOW_US */
    long slow_every;       /* NCCLSIM_SLOW_EVERY */
    double jitter_us;      /* NCCLSIM_JITTER_US */
    int hang_rank;         /* NCCLSIM_HANG_RANK, -1: none */
    long hang_seq;         /* NCCLSIM_HANG_SEQ */
    double rdv_timeout_s;  /* NCCLSIM_RENDEZVOUS_TIMEOUT_S */
    int slow_link_rank;    /* NCCLSIM_SLOW_LINK_RANK, -1: none */
    double slow_link_factor;  /* NCCLSIM_SLOW_LINK_FACTOR */
    long slower_from_seq;  /* NCCLSIM_SLOWER_FROM_SEQ, -1: none */
    double slower_factor;  /* NCCLSIM_SLOWER_FACTOR */
    double first_call_us;  /* NCCLSIM_FIRST_CALL_US */
    int data;              /* NCCLSIM_DATA */
    int reuse_handles;     /* NCCLSIM_REUSE_HANDLES */
};

const struct sim_knobs *sim_knobs(void);

#endif
