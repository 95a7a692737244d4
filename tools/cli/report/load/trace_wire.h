/* The trace reader's events as bytes and back: how its child process
 * (trace_child.c), where libbabeltrace2 reads the untrusted trace, hands
 * each struct tev and its result to the report. A record is a head (kind,
 * length) and its payload; an event's payload is the struct with its
 * pointers left out, then each string (a length, its bytes), then the
 * frames. A child that libbabeltrace2 corrupted may write anything, so
 * the decoders check every length against the record's and refuse a
 * record out of range, as a loader refuses a file. trace_wire.c */
#ifndef NCCLTAP_CLI_TRACE_WIRE_H
#define NCCLTAP_CLI_TRACE_WIRE_H

#include "trace_events.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum wire_kind {
    WIRE_EVENT = 1,  /* one event */
    WIRE_END = 2,    /* the reader's result: the last record */
};

struct wire_head {
    uint32_t kind, len;  /* len bytes of payload follow */
};

/* Frames and Python frames of a callsite event (trace_decode.c reads 64). */
#define WIRE_MAX_FRAMES 64

/* A string of an event is cut past this: names and paths are shorter, and
 * so no event is too long to send. */
#define WIRE_MAX_STRING (1u << 16)

/* No record the child writes is longer (15 strings, the frames, the
 * struct; an error message). */
#define WIRE_MAX_LEN (1u << 24)

/* Write one record to `out`; false when it could not be written. */
bool wire_put_event(FILE *out, const struct tev *e);
bool wire_put_end(FILE *out, int rc, const struct trace_stats *stats, const char *error);

/* A decoded event and the memory its strings and frames point into,
 * valid until the next decode into it. */
struct wire_event {
    struct tev e;
    uint64_t frames[WIRE_MAX_FRAMES], python[WIRE_MAX_FRAMES];
    char *strings;
    size_t cap;
};

/* Decode one payload p[0..len) of its kind; false when it is not one the
 * child could have written. wire_get_end's *error is malloc'ed, NULL when
 * the reader said none. */
bool wire_get_event(const uint8_t *p, size_t len, struct wire_event *w);
bool wire_get_end(const uint8_t *p, size_t len, int *rc, struct trace_stats *stats, char **error);
void wire_event_free(struct wire_event *w);

#endif
