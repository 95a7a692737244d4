/* libnccltap-lttng.so: the probes of the nccltap provider. The shim loads
 * it with dlopen only when tracing is wanted, so the shim itself needs no
 * liblttng-ust. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "nccltap_tp.h"
