#ifndef PLAN_REGEN_CGLIBCMALLOC_SHIM_H
#define PLAN_REGEN_CGLIBCMALLOC_SHIM_H
// glibc's malloc settings (mallopt): Swift's Glibc module leaves <malloc.h> out.
#include <malloc.h>
#endif
