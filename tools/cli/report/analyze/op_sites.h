/* The call site of a per-op record. The records carry none (the per-op
 * file has no room for it), but the process's statistics do: each call
 * site's calls per statistics row (communicator, op, datatype, size
 * class). An op whose row was called from one site only was called from
 * there; where a row has calls from several sites, which one made a given
 * op is not known. op_sites.c */
#ifndef NCCLTAP_CLI_REPORT_OP_SITES_H
#define NCCLTAP_CLI_REPORT_OP_SITES_H

#include "model.h"

struct op_site_key;

/* One process's rows and the one site of each (NULL: several), sorted. */
struct op_sites {
    struct op_site_key *v;
    size_t n;
};

void op_sites_of_file(const struct rank_file *f, struct op_sites *out);

/* Where the op was called, or NULL when not known. */
const struct callsite *op_site(const struct op_sites *s, const struct report *r, const struct op_event *e);

void op_sites_free(struct op_sites *s);

#endif
