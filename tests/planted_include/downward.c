/* Compiled as the base floor (preload/base) is, including only a header of
 * its own floor and one of abi below it: the control case, which builds. */
#include "abi/nccl_abi.h"
#include "base/config.h"

int planted_downward(void);
int planted_downward(void) { return (int)tap_config.timing; }
