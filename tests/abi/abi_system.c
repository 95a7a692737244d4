/* The system's nccl.h first: nccltap's header then skips its own types and
 * redeclares every prototype, so any difference in a function's parameters
 * or return type is a compile error here. */
#include <stddef.h>

#include <nccl.h>

#include "abi/nccl_abi.h"
#include "abi_values.h"

const struct abi_value *abi_system(void);

#define ROW(expr) {#expr, (long long)(expr)},
const struct abi_value *abi_system(void)
{
    static const struct abi_value v[] = {ABI_VALUES(ROW){NULL, 0}};
    return v;
}
