/* The daemon's malloc tuning (malloc-tuning.h) on Windows: nothing to
 * tune.  The C runtime's malloc is the process heap's (HeapAlloc), which
 * decommits free pages of its own accord past its threshold and has no
 * glibc knobs; what a batch of censuses freed goes back that way. */
#include "malloc-tuning.h"

void malloc_tuning_init(void)
{
}

void malloc_tuning_release(void)
{
}
