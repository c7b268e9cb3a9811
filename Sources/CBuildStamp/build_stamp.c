#include "build_stamp.h"

#ifndef PLAN_REGEN_COMMIT
#define PLAN_REGEN_COMMIT ""
#endif

const char *const plan_regen_build_commit = PLAN_REGEN_COMMIT;
