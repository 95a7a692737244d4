/* nccltap-bench: a multi-rank NCCL workload that times every call with its
 * own CUDA events. It is the ground truth nccltap is checked against, so it
 * calls NCCL plainly (linked, not loaded) and nothing else in between. */
#include <stdlib.h>
#include "launch.h"
#include "options.h"

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = options_parse(argc, argv, &o);
    if (rc < 0)
        rc = o.fork_ranks ? launch_forked(&o) : launch_single(&o);
    free(o.sizes);
    return rc;
}
