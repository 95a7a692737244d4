/* The kinds of finding, one row each (finding_kinds.c): how a finding of
 * the kind is named in the text and in --json, the words of its evidence,
 * its next step, its JSON evidence, the fields of the finding's JSON that
 * the kind uses, and where the HTML page pictures it. A row's functions
 * read the finding's common fields and its kind's own evidence
 * (f->evidence.<kind>, declared by analyze/<kind>_finding.h), no other
 * kind's. A new verdict is an analysis (analyze/<kind>_finding.c, its
 * kind in findings.h) and a row here, with its file of renderers
 * (finding_<kind>.c): docs/development.md, "Adding a finding". Read by
 * findings_render.c and html.c. */
#ifndef NCCLTAP_CLI_REPORT_FINDING_KINDS_H
#define NCCLTAP_CLI_REPORT_FINDING_KINDS_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

/* Fields of a finding's JSON beside rank, host, pid, comm, op, bytes. */
enum {
    FINDING_JSON_PEER = 1,     /* "peer": the pair's other rank, or null */
    FINDING_JSON_SEQ = 2,      /* "seq": its op, or its worst instance */
    FINDING_JSON_REPLAY = 4,   /* "replay", where that instance is an execution of a captured call */
};

struct finding_kind_row {
    const char *name;          /* the text's word, in capitals: "STRAGGLER" */
    const char *key;           /* --json's "kind": "straggler" */
    /* Its evidence after the name, without a newline: lines apart by
     * `sep` (a new line in the text, "; " in a one-line form). */
    void (*line)(const struct finding *f, const char *sep, FILE *out);
    /* What to do next, one line: what to look at, and the command. */
    void (*next)(const struct finding *f, FILE *out);
    /* --json's "evidence" of it, into e. */
    void (*evidence)(const struct finding *f, json_t *e);
    /* The HTML page's element that pictures it. */
    const char *(*anchor)(const struct finding *f);
    unsigned json;             /* FINDING_JSON_* */
};

/* The row of f's kind. */
const struct finding_kind_row *finding_kind_of(const struct finding *f);

#endif
