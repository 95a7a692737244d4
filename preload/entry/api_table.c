#include "entry/api_table.h"

#include <stdint.h>
#include <string.h>

#include "abi/nccl_abi.h"
#include "nccl/real_nccl.h"

/* ncclX and pncclX are twins of their own (wrappers.c). */
#define TAP_API_ENTRY(fn, params, args, kind)                        \
    {#fn, (void *)(uintptr_t)&fn, offsetof(struct real_nccl, fn)},    \
    {"p" #fn, (void *)(uintptr_t)&p##fn, offsetof(struct real_nccl, p##fn)},
static const struct tap_api_entry api[] = {NCCLTAP_NCCL_API(TAP_API_ENTRY)};
#undef TAP_API_ENTRY

const struct tap_api_entry *tap_api_find(const char *name)
{
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        if (strcmp(name, api[i].name) == 0)
            return &api[i];
    return NULL;
}

bool tap_api_wraps(const char *name)
{
    return tap_api_find(name) != NULL;
}
