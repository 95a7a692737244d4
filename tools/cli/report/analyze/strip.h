/* The HTML report's timeline strip: a few collectives of one communicator
 * around the worst finding that has them (a straggler's worst instance, a
 * slow collective's, the last ones before a hang, an OS finding's worst
 * op), each rank's op as an interval from its arrival (its GPU start) to
 * its end, and the times its process's followed threads were preempted
 * (OS interference, from a kernel trace or the shim's own records), in the
 * reference clock (crossrank's alignment), from the window's start. It
 * reads r->cross, the findings and the OS analysis; it never reads files
 * or formats text.
 * Called once per report, on its thread. strip.c */
#ifndef NCCLTAP_CLI_REPORT_STRIP_H
#define NCCLTAP_CLI_REPORT_STRIP_H

#include "findings.h"
#include "model.h"
#include "os_interference.h"

/* Collectives either side of the finding's (hang: before it). */
#define STRIP_SPAN 2
/* Rows drawn at most: the culprit first, then the lowest other ranks. */
#define STRIP_MAX_RANKS 32

/* One rank's part in one collective of the window. */
struct strip_op {
    int row;                    /* index into strip.ranks */
    uint64_t seq;
    int64_t start_ns, end_ns;   /* from the window's start */
    bool last;                  /* the last of its instance to arrive */
};

/* A time a row's process's thread was off its CPU, preempted, clipped to
 * the window. */
struct strip_off {
    int row;
    int64_t start_ns, end_ns;   /* from the window's start */
    int32_t tid;
};

struct strip {
    const struct finding *around;  /* NULL: no finding with collectives to show */
    uint64_t comm;
    uint8_t op;                 /* the finding's instance's op (report_name) */
    uint64_t seq;               /* the finding's instance (hang: the stuck op, not drawn) */
    int64_t span_ns;            /* the window's length: the last end */
    int *ranks;                 /* the rows, ascending; the culprit among them */
    size_t nranks;
    size_t ranks_total;         /* ranks in the window's instances */
    struct strip_op *ops;
    size_t nops;
    struct strip_off *off;      /* by row, then start */
    size_t noff;
};

/* Fills *out from r->cross (NULL: an empty strip), the findings and `os`
 * (os_interference_analyze's; may be empty). */
void report_strip(const struct report *r, const struct findings *f, const struct os_interference *os,
                  struct strip *out);
void strip_free(struct strip *s);

#endif
