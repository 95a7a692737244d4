/* The phrases every kind of finding says alike, for the kinds' renderers
 * (finding_*.c): numbers grouped by thousands, durations in their unit,
 * the culprit's process and host. finding_text.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_TEXT_H
#define NCCLTAP_CLI_REPORT_FINDING_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"

/* 2553 -> "2,553", in buf. */
const char *finding_grouped(size_t v, char buf[32]);
/* "8.0 s", "42.0 ms", "200.0 us", in buf. */
const char *finding_duration(double us, char buf[32]);
/* " (host h, pid p)" for a process, when known. */
void finding_process(const struct rank_file *f, FILE *out);
/* " on host H" where the culprit's host is known. */
void finding_on_host(const struct finding *f, FILE *out);
/* The culprit's pid, "<pid>" where it is not known. */
void finding_pid(const struct finding *f, FILE *out);

#endif
