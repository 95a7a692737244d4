/* The reader of one per-rank document (format nccltap-rank/1), fed bytes
 * as they are read: a streaming (SAX) parse with yajl that copies each field
 * straight into the document model through the fill (rank_fill.h, which
 * the trace's reader fills too), so that no JSON tree is ever built. A
 * run of 4,096 files of 200 rows is half a gigabyte of JSON; jansson takes
 * 9 s to build and free its trees, yajl under 2 s to stream it.
 *
 * What the reader accepts is described by the field tables of rank_parse.c
 * (one per part of a file: the file, "comms", "ops"); an error names the
 * part and the field, as "\"ops\"[3]: \"calls\" is not a non-negative
 * integer". */
#ifndef NCCLTAP_CLI_REPORT_RANK_PARSE_H
#define NCCLTAP_CLI_REPORT_RANK_PARSE_H

#include <stddef.h>

#include "model.h"

struct rank_parser;

/* A parser that fills *f (zeroed by the caller; f->path set) and interns
 * its strings in r. */
struct rank_parser *rank_parser_new(struct report *r, struct rank_file *f);

/* Feeds the next `len` bytes. Returns 0, or -1 once the input is known to
 * be bad (rank_parser_finish says why; feeding more is useless). */
int rank_parser_feed(struct rank_parser *p, const void *buf, size_t len);

/* Ends the input, and hands the top-level members read as JSON
 * ("callsites", "modules", "os", ...: rank_parse.c's kept_keys) to their
 * loaders (rank_fill_kept). Returns 0 when *f holds a whole, valid
 * document, or -1 with `why` saying what is wrong; *f then holds what was
 * read, for rank_file_free() (rank_fill.h). */
int rank_parser_finish(struct rank_parser *p, char *why, size_t why_len);

void rank_parser_free(struct rank_parser *p);

#endif
