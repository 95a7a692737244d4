/* What the wrapper of ncclWaitSignal records as the wait's peer. */
#ifndef NCCLTAP_ONESIDED_H
#define NCCLTAP_ONESIDED_H

#include <stddef.h>

#include "abi/nccl_abi.h"

/* The peer every descriptor names (a wait for one rank's signals, the
 * common case: "how long did rank R wait for rank P"), or -1 when they
 * name several, or none can be read: NCCL refuses a NULL array or a count
 * below 1 itself, and its code passes through unchanged. Read before the
 * call, as NCCL reads them; the array is the caller's, never kept. */
static inline int tap_wait_peer(int ndesc, const ncclWaitSignalDesc_t *descs)
{
    if (ndesc < 1 || !descs)
        return -1;
    int peer = descs[0].peer;
    for (int i = 1; i < ndesc; i++)
        if (descs[i].peer != peer)
            return -1;
    return peer;
}

#endif
