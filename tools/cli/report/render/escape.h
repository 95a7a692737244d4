/* Names read from files (hosts, jobs, communicator names, process names)
 * are the application's or anyone's who could write to the directory: the
 * text report shows them with what a terminal would act on escaped, so
 * that a name cannot move the cursor, recolour or retitle the terminal. */
#ifndef NCCLTAP_CLI_REPORT_ESCAPE_H
#define NCCLTAP_CLI_REPORT_ESCAPE_H

#include <stddef.h>

/* Enough for any name the shim writes (hosts and communicator names are at
 * most 127 bytes, each escaped byte takes 4). */
#define SHOWN_MAX 1024

/* `s` as the text report prints it, in `buf`: C0 controls, DEL and the C1
 * controls (U+0080..U+009F) and bytes that are not UTF-8 as \xNN, and a
 * backslash as \\, so that the escape is unambiguous; "..." ends a name
 * too long for the buffer. Returns buf. */
const char *shown(const char *s, char buf[SHOWN_MAX]);

#endif
