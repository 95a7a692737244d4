/* The two forms of the report. */
#ifndef NCCLTAP_CLI_REPORT_OUT_H
#define NCCLTAP_CLI_REPORT_OUT_H

#include <stdio.h>
#include "report.h"

/* Both return 0, or -1 when the output could not be written. */
int report_print_text(const struct report *r, FILE *out);
int report_print_json(const struct report *r, FILE *out);

/* Loads DIR and prints its text report on stdout: what `nccltap report DIR`
 * does, for the demo. Returns the exit status. */
int report_dir_text(const char *dir);

#endif
