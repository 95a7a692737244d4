/* Names read from files (hosts, jobs, communicator names, process names)
 * are the application's or anyone's who could write to the directory: the
 * text report shows them with what a terminal would act on escaped, so
 * that a name cannot move the cursor, recolour or retitle the terminal,
 * reverse or break the line, or end the quotes it is printed in. Messages
 * (util.h, msg) pass whole through the same, for the file names they
 * carry. Below the report's renderers and util.c; calls nothing. */
#ifndef NCCLTAP_CLI_REPORT_ESCAPE_H
#define NCCLTAP_CLI_REPORT_ESCAPE_H

#include <stddef.h>

/* Enough for any name the shim writes (hosts and communicator names are at
 * most 127 bytes, each escaped byte takes 4). */
#define SHOWN_MAX 1024

/* `s` as the text report prints it, in `buf`: C0 controls, DEL, the C1
 * controls (U+0080..U+009F), the characters that reorder or break the
 * line (U+2028, U+2029, U+202A..U+202E, U+2066..U+2069) and bytes that
 * are not UTF-8 as \xNN, each byte of them, and a backslash as \\, so
 * that the escape is unambiguous; "..." ends a name too long for the
 * buffer. Returns buf. */
const char *shown(const char *s, char buf[SHOWN_MAX]);

/* The same for a name printed between quotes: " and ' too as \x22 and
 * \x27, so that the name cannot end its quotes and forge what follows. */
const char *shown_quoted(const char *s, char buf[SHOWN_MAX]);

/* A whole message as shown() would show it, into buf of `size` bytes,
 * but a backslash kept: nothing in it need be told from an escape, and a
 * shell command in it stays one to paste. Returns buf. */
const char *shown_message(const char *s, char *buf, size_t size);

#endif
