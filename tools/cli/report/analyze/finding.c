/* A finding added to the list, and its culprit's process (finding.h). */
#include "finding.h"
#include "util.h"

#include <stdlib.h>

struct finding *finding_add(struct findings *f, enum finding_kind kind, enum finding_section section)
{
    f->v = xrealloc(f->v, (f->n + 1) * sizeof *f->v);
    struct finding *x = &f->v[f->n++];
    *x = (struct finding){ .kind = kind, .section = section, .rank = -1, .peer = -1 };
    return x;
}

const struct rank_file *finding_file_of(const struct report *r, uint64_t comm, int rank)
{
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].ncomms; k++) {
            const struct comm_entry *c = &r->files[i].comms[k];
            if (c->rank == rank && strtoull(c->id, NULL, 16) == comm)
                return &r->files[i];
        }
    return NULL;
}

