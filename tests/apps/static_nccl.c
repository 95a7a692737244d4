/* NCCL inside the program, as when it is linked statically: the program
 * defines ncclGetVersion and ncclAllReduce itself and exports them
 * (-rdynamic), so its calls bind to its own definitions, ahead of any
 * preloaded library. nccltap sees none of them and must say why at exit.
 * Prints "calls=2" when both ran. */
#include <stdio.h>

int ncclGetVersion(int *version);
int ncclAllReduce(const void *s, void *r, unsigned long n, int t, int op, void *comm, void *stream);

int ncclGetVersion(int *version)
{
    *version = 22203;
    return 0;
}

int ncclAllReduce(const void *s, void *r, unsigned long n, int t, int op, void *comm, void *stream)
{
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)comm, (void)stream;
    return 0;
}

int main(void)
{
    int v, calls = 0;
    calls += ncclGetVersion(&v) == 0;
    calls += ncclAllReduce(NULL, NULL, 0, 0, 0, NULL, NULL) == 0;
    printf("calls=%d\n", calls);
    return 0;
}
