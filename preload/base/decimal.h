/* Whole numbers in decimal without printf, for writers that print many
 * (Prometheus counters, NCCLTAP_OS's intervals): a tenth of its cost.
 * Pure; any thread. */
#ifndef NCCLTAP_DECIMAL_H
#define NCCLTAP_DECIMAL_H

#include <stdint.h>

/* Room for any uint64_t: 20 digits. */
#define TAP_DECIMAL_MAX 20

/* v's digits written backwards so that they end just before `end` (with
 * at least TAP_DECIMAL_MAX bytes before it); returns where they start. */
static inline char *tap_decimal(uint64_t v, char *end)
{
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

#endif
