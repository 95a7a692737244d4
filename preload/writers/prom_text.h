/* The Prometheus text exposition format (version 0.0.4), as node_exporter's
 * textfile collector and promtool read it: what nccltap needs of it to
 * write a metric family, and Inspector's message-size buckets. Pure
 * functions on a FILE* (the configuration fuzzer and the unit tests call
 * them directly); no state. */
#ifndef NCCLTAP_PROM_TEXT_H
#define NCCLTAP_PROM_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "# HELP name help" and "# TYPE name type": once per family, before its
 * samples, which must follow together. `help` is a fixed text of nccltap's
 * (no backslash or newline to escape). */
void tap_prom_family(FILE *f, const char *name, const char *type, const char *help);

/* A label value between its quotes: backslash, double quote and newline
 * escaped as the format requires, bytes that are not UTF-8 written as
 * U+FFFD (the format's values are UTF-8; node_exporter refuses a file
 * with invalid bytes). */
void tap_prom_label_value(FILE *f, const char *s);

/* `name="value"` with the value escaped; `sep` before it ("" or ","). */
void tap_prom_label(FILE *f, const char *sep, const char *name, const char *value);

/* A sample value: 10 significant digits (finer than any measurement
 * here), "+Inf", "-Inf", "NaN" as the format spells them. */
void tap_prom_value(FILE *f, double v);

/* A whole number (a counter, a bucket's count), without printf. */
void tap_prom_uint(FILE *f, uint64_t v);

/* NCCL Inspector's message_size label for a message of `bytes`: the
 * integer part of its size in the largest unit (B, KB, MB, GB, TB; powers
 * of 1024) that keeps it at least 1, and that plus one: 1536 B is "1-2KB",
 * 3 MiB "3-4MB", 0 "0B". Returns the bucket's lower bound in bytes (the
 * key: every size in it gets the same label). */
uint64_t tap_prom_inspector_size(uint64_t bytes, char *buf, size_t len);

#endif
