/* Bytes and bus-bandwidth factors, as nccl-tests defines them. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nccl/nccl_ops.h"
#include "test.h"

void test_nccl_ops(void)
{
    /* ncclFloat32 = 7, 4 ranks. */
    CHECK(tap_op_bytes(TAP_OP_ALLREDUCE, 256, 7, 4) == 1024);
    CHECK(tap_op_bytes(TAP_OP_ALLGATHER, 256, 7, 4) == 4096);     /* sendcount x n */
    CHECK(tap_op_bytes(TAP_OP_REDUCESCATTER, 256, 7, 4) == 4096); /* recvcount x n */
    CHECK(tap_op_bytes(TAP_OP_ALLTOALL, 256, 7, 4) == 4096);
    CHECK(tap_op_bytes(TAP_OP_GATHER, 256, 7, 4) == 4096);
    CHECK(tap_op_bytes(TAP_OP_SCATTER, 256, 7, 4) == 4096);
    CHECK(tap_op_bytes(TAP_OP_BROADCAST, 256, 7, 4) == 1024);
    CHECK(tap_op_bytes(TAP_OP_SEND, 256, 9, 4) == 512);           /* bfloat16 */
    CHECK(tap_op_bytes(TAP_OP_ALLREDUCE, 256, 11, 4) == 256);     /* fp8e5m2 */
    CHECK(tap_op_bytes(TAP_OP_ALLREDUCE, 256, 12, 4) == 0);       /* unknown */
    CHECK(fabs(tap_op_busbw_factor(TAP_OP_ALLREDUCE, 4) - 1.5) < 1e-12);
    CHECK(fabs(tap_op_busbw_factor(TAP_OP_ALLGATHER, 4) - 0.75) < 1e-12);
    CHECK(fabs(tap_op_busbw_factor(TAP_OP_ALLTOALL, 8) - 0.875) < 1e-12);
    CHECK(tap_op_busbw_factor(TAP_OP_REDUCE, 4) == 1.0);
    CHECK(tap_op_busbw_factor(TAP_OP_RECV, 4) == 1.0);
    /* One-sided: a put is count x its type, bus factor 1, as a send. */
    CHECK(tap_op_bytes(TAP_OP_PUTSIGNAL, 256, 7, 4) == 1024);
    CHECK(tap_op_busbw_factor(TAP_OP_PUTSIGNAL, 4) == 1.0);
    CHECK(!strcmp(tap_op_name(TAP_OP_WAITSIGNAL), "WaitSignal"));
    CHECK(tap_op_is_p2p(TAP_OP_SEND) && tap_op_is_p2p(TAP_OP_PUTSIGNAL) && tap_op_is_p2p(TAP_OP_SIGNAL) &&
          tap_op_is_p2p(TAP_OP_WAITSIGNAL) && !tap_op_is_p2p(TAP_OP_ALLREDUCE) && !tap_op_is_p2p(-1));
    char buf[32];
    CHECK(!strcmp(tap_dtype_name(12, buf, sizeof buf), "unknown(12)"));
    CHECK(!strcmp(tap_dtype_name(6, buf, sizeof buf), "float16"));
    CHECK(!strcmp(tap_op_name(TAP_OP_ALLTOALL), "AlltoAll"));
    CHECK(!strcmp(tap_redop_name(-1, NULL, buf, sizeof buf), "none"));
    CHECK(!strcmp(tap_redop_name(4, NULL, buf, sizeof buf), "avg"));
    CHECK(!strcmp(tap_redop_name(5, NULL, buf, sizeof buf), "premulsum#0"));
    CHECK(!strcmp(tap_redop_name(7, NULL, buf, sizeof buf), "premulsum#2"));
    CHECK(!strcmp(tap_redop_name(-3, NULL, buf, sizeof buf), "unknown(-3)"));
    /* Real NCCL's handles, scrambled with the communicator's address
     * (ncclUserRedOpMangle's formula, worked by hand for this address):
     * slots 0 and 2 of the communicator at 0x7f12345678a0. */
    const void *comm = (const void *)(uintptr_t)0x7f12345678a0ull;
    CHECK(tap_redop_user_slot(comm, 0x7fdcc000) == 0 && tap_redop_user_slot(comm, 0x7fdcc002) == 2);
    CHECK(!strcmp(tap_redop_name(0x7fdcc002, comm, buf, sizeof buf), "premulsum#2"));
    CHECK(tap_redop_user_slot(comm, 3) == -1);
    for (int op = 0; op < TAP_OP_COUNT; op++)
        CHECK(tap_op_from_name(tap_op_name((enum tap_op)op)) == op);
    CHECK(tap_op_from_name("Broadcast") == TAP_OP_BROADCAST);  /* ncclBcast too */
    CHECK(tap_op_from_name("allreduce") == -1);
    CHECK(tap_op_from_name("Bcast") == -1);
    CHECK(tap_op_from_name("") == -1);
    CHECK(tap_size_class(1) == 0 && tap_size_class(1024) == 10 && tap_size_class(1025) == 10);
    CHECK(!strcmp(tap_nccl_version_str(23000, buf, sizeof buf), "2.30.0"));
    CHECK(!strcmp(tap_nccl_version_str(2804, buf, sizeof buf), "2.8.4"));
    CHECK(!strcmp(tap_nccl_version_str(21803, buf, sizeof buf), "2.18.3"));
}
