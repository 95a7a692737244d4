/* Minimal helpers to write JSON with stdio: strings escaped, numbers in a
 * form every parser reads (no NaN or infinity). */
#ifndef NCCLTAP_JSON_WRITER_H
#define NCCLTAP_JSON_WRITER_H

#include <stdio.h>

void json_string(FILE *f, const char *s);
void json_number(FILE *f, double v);

#endif
