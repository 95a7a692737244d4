#include "state/entry_events.h"

struct tap_entry_count tap_entry_counts[TAP_EV_COUNT];

const char *tap_entry_event_name(enum tap_entry_event ev)
{
    static const char *const names[TAP_EV_COUNT] = {
#define TAP_EV_NAME(name) #name,
        NCCLTAP_NCCL_EVENTS(TAP_EV_NAME)
#undef TAP_EV_NAME
    };
    return ev < TAP_EV_COUNT ? names[ev] : "?";
}
