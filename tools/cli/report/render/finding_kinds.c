/* The table of the kinds of finding (finding_kinds.h): one row each, in
 * enum finding_kind's order. */
#include "finding_kinds.h"
#include "finding_hang.h"
#include "finding_mismatch.h"
#include "finding_os.h"
#include "finding_settings.h"
#include "finding_slow.h"
#include "finding_slower.h"
#include "finding_straggler.h"

static const char *at_mismatches(const struct finding *f) { (void)f; return "text-mismatches"; }
static const char *at_settings(const struct finding *f) { (void)f; return "text-settings"; }
static const char *at_hang(const struct finding *f) { (void)f; return "hang"; }
static const char *at_ranks(const struct finding *f) { (void)f; return "ranks"; }
static const char *at_bandwidth(const struct finding *f) { (void)f; return "bandwidth"; }
static const char *at_os(const struct finding *f) { (void)f; return "text-os"; }
static const char *at_steps(const struct finding *f) { (void)f; return "steps"; }

static const struct finding_kind_row rows[] = {
    [FINDING_MISMATCH] = { "MISMATCH", "mismatch", finding_mismatch_line, finding_mismatch_next,
                           finding_mismatch_evidence, at_mismatches, FINDING_JSON_SEQ | FINDING_JSON_REPLAY },
    [FINDING_HANG] = { "HANG", "hang", finding_hang_line, finding_hang_next, finding_hang_evidence, at_hang,
                       FINDING_JSON_SEQ },
    [FINDING_STALL] = { "STALL", "stall", finding_stall_line, finding_stall_next, finding_stall_evidence, at_hang,
                        FINDING_JSON_SEQ },
    [FINDING_STRAGGLER] = { "STRAGGLER", "straggler", finding_straggler_line, finding_straggler_next,
                            finding_straggler_evidence, at_ranks, FINDING_JSON_SEQ | FINDING_JSON_REPLAY },
    [FINDING_SLOW_LINK] = { "SLOW LINK", "slow_link", finding_slow_line, finding_slow_link_next,
                            finding_slow_evidence, finding_slow_link_anchor, FINDING_JSON_PEER },
    [FINDING_SLOW_TRANSFER] = { "SLOW", "slow_transfer", finding_slow_line, finding_slow_next,
                                finding_slow_evidence, at_bandwidth, FINDING_JSON_PEER },
    [FINDING_BELOW_EXPECTED] = { "BELOW EXPECTED", "below_expected", finding_slow_line, finding_slow_next,
                                 finding_slow_evidence, at_bandwidth, FINDING_JSON_PEER },
    [FINDING_OS] = { "OS", "os", finding_os_line, finding_os_next, finding_os_evidence, at_os, 0 },
    [FINDING_SETTINGS] = { "SETTINGS", "settings", finding_settings_line, finding_settings_next,
                           finding_settings_evidence, at_settings, 0 },
    [FINDING_SLOWER] = { "SLOWER", "slower", finding_slower_line, finding_slower_next, finding_slower_evidence,
                         at_steps, FINDING_JSON_SEQ },
};
_Static_assert(sizeof rows / sizeof rows[0] == FINDING_KINDS, "a row for every kind of finding");

const struct finding_kind_row *finding_kind_of(const struct finding *f)
{
    return &rows[f->kind];
}
