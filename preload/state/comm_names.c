/* Names of communicator origins and states, for the outputs. Its own file:
 * the LTTng provider uses them too. */
#include "state/comm_registry.h"

const char *tap_comm_origin_name(enum tap_comm_origin o)
{
    static const char *const names[] = {"init", "initall", "config", "scalable",
                                        "split", "shrink", "grow", "unregistered", "overflow"};
    return names[o];
}

const char *tap_comm_state_name(int state)
{
    static const char *const names[] = {"alive", "finalized", "destroyed", "aborted"};
    return names[state];
}
