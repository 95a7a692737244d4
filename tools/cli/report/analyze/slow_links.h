/* Slow links: each communicator's send/recv busbw per pair and transfer
 * time per rank (struct xr_links), and the ranks whose figures stand apart
 * (struct xr_slow_link). A part of crossrank_analyze (crossrank.c), run
 * after the pairs and instances are measured; on the report's thread. */
#ifndef NCCLTAP_CLI_REPORT_SLOW_LINKS_H
#define NCCLTAP_CLI_REPORT_SLOW_LINKS_H

#include "crossrank_base.h"

/* Fills x->links and x->slow_links from x->pairs, x->instances and
 * x->expect. */
void xr_find_slow_links(const struct report *r, struct crossrank *x);

/* Frees what xr_find_slow_links allocated. */
void xr_free_links(struct crossrank *x);

#endif
