/* Renderers: the report as text to read or as one JSON document. They
 * print what the document and the analyses hold; they compute no
 * statistics and open no input. */
#ifndef NCCLTAP_CLI_REPORT_RENDER_H
#define NCCLTAP_CLI_REPORT_RENDER_H

#include <stdio.h>

#include "model.h"

/* Both return 0, or -1 when the output could not be written. */
int report_print_text(const struct report *r, FILE *out);
int report_print_json(const struct report *r, FILE *out);

/* Sections of the text report, each its own function. */
void print_os_interference(const struct report *r, FILE *out);  /* text_os.c */

#endif
