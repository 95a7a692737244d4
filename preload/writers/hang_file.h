/* What the hang watchdog (reducer/hang.c) leaves: NCCLTAP_DIR/
 * nccltap-<run>@<host>-<pid>.hang.json, replaced whole as the rank file is
 * (README, Outputs, has its fields), and one line on stderr. */
#ifndef NCCLTAP_HANG_FILE_H
#define NCCLTAP_HANG_FILE_H

#include "reducer/hang.h"

void tap_hang_file_write(const struct tap_hang *h);

#endif
