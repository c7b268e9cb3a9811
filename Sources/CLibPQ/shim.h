#ifndef PLAN_REGEN_CLIBPQ_SHIM_H
#define PLAN_REGEN_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
