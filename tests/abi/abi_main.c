#include <stdio.h>

#include "abi_values.h"

const struct abi_value *abi_ours(void);
const struct abi_value *abi_system(void);

int main(void)
{
    const struct abi_value *a = abi_ours(), *b = abi_system();
    int bad = 0, n = 0;
    for (; a[n].name; n++)
        if (a[n].value != b[n].value) {
            printf("%s: nccltap says %lld, nccl.h says %lld\n", a[n].name, a[n].value, b[n].value);
            bad++;
        }
    printf("%d of %d ABI values match nccl.h\n", n - bad, n);
    return bad != 0;
}
