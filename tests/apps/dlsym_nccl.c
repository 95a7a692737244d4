/* NCCL reached only through dlsym, as XGBoost's nccl_stub, ctypes and cffi
 * reach it: the program does not link libnccl.so.2, it dlopen()s it and
 * looks every function up. Usage: dlsym_nccl handle|global
 *   handle: dlopen(RTLD_LOCAL), every function from dlsym on its handle;
 *           AllGather through its pncclAllGather twin.
 *   global: dlopen(RTLD_GLOBAL), AllReduce from dlsym(RTLD_DEFAULT),
 *           Broadcast from dlsym(RTLD_NEXT), the rest from the handle.
 * Prints the calls it made (tests/shim_case.py), "next_marker": whether
 * dlsym(RTLD_NEXT, "nccltap_shim_marker") still finds the name in the
 * preloaded shim: a lookup nccltap passes on keeps its caller's view, and
 * "dlvsym_found": how many lookups of NCCL's functions by dlvsym, on the
 * handle, RTLD_DEFAULT and RTLD_NEXT, with any version, found one. glibc
 * finds none in an object with a version table (as every NCCL linked
 * against glibc has), so no call can go around nccltap that way. */
#define _GNU_SOURCE /* dlvsym */
#include <dlfcn.h>
#include <string.h>

#include "nccl_app.h"

#define ALLREDUCES 5
#define ALLGATHERS 3
#define BROADCASTS 4

static void *look(void *handle, const char *name)
{
    void *fn = dlsym(handle, name);
    if (!fn) {
        fprintf(stderr, "dlsym_nccl: %s: %s\n", name, dlerror());
        exit(2);
    }
    return fn;
}

/* Lookups by dlvsym that found an NCCL function (see above). */
static int dlvsym_found(void *nccl)
{
    static const char *const names[] = {"ncclAllReduce", "pncclAllReduce", "ncclGetVersion", "ncclCommInitRank"};
    static const char *const versions[] = {"X", "Base", "NCCL_2", "GLIBC_2.2.5", "GLIBC_2.17"};
    void *handles[] = {nccl, RTLD_DEFAULT, RTLD_NEXT};
    int found = 0;
    for (size_t h = 0; h < sizeof handles / sizeof handles[0]; h++)
        for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
            for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)
                found += dlvsym(handles[h], names[n], versions[v]) != NULL;
    return found;
}

int main(int argc, char **argv)
{
    int global = argc > 1 && strcmp(argv[1], "global") == 0;
    void *nccl = dlopen("libnccl.so.2", RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!nccl) {
        fprintf(stderr, "dlsym_nccl: %s\n", dlerror());
        return 2;
    }
    ncclResult_t (*get_id)(ncclUniqueId *) = (ncclResult_t(*)(ncclUniqueId *))look(nccl, "ncclGetUniqueId");
    ncclResult_t (*init)(ncclComm_t *, int, ncclUniqueId, int) =
        (ncclResult_t(*)(ncclComm_t *, int, ncclUniqueId, int))look(nccl, "ncclCommInitRank");
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t) =
        (ncclResult_t(*)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                         cudaStream_t))look(global ? RTLD_DEFAULT : nccl, "ncclAllReduce");
    ncclResult_t (*all_gather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) =
        (ncclResult_t(*)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))look(
            nccl, global ? "ncclAllGather" : "pncclAllGather");
    ncclResult_t (*broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
        (ncclResult_t(*)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))look(
            global ? RTLD_NEXT : nccl, "ncclBroadcast");
    ncclResult_t (*destroy)(ncclComm_t) = (ncclResult_t(*)(ncclComm_t))look(nccl, "ncclCommDestroy");

    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(1 << 16);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(get_id(&id));
    CHECK_NCCL(init(&comm, 1, id, 0));
    for (int k = 0; k < ALLREDUCES; k++)
        CHECK_NCCL(all_reduce(b, b, 1024, ncclFloat32, ncclSum, comm, s));
    for (int k = 0; k < ALLGATHERS; k++)
        CHECK_NCCL(all_gather(b, b, 256, ncclFloat32, comm, s));
    for (int k = 0; k < BROADCASTS; k++)
        CHECK_NCCL(broadcast(b, b, 512, ncclFloat32, 0, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(destroy(comm));
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllReduce\", \"n\": %d}\n", ALLREDUCES);
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllGather\", \"n\": %d}\n", ALLGATHERS);
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"Broadcast\", \"n\": %d}\n", BROADCASTS);
    printf("{\"result\": \"next_marker\", \"code\": %d}\n", dlsym(RTLD_NEXT, "nccltap_shim_marker") != NULL);
    printf("{\"result\": \"dlvsym_found\", \"code\": %d}\n", dlvsym_found(nccl));
    return 0;
}
