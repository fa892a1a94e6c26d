/* The daemon's own malloc tuning (malloc-tuning.h). */
#include "malloc-tuning.h"

#include <malloc.h>

#include "limits.h"

void malloc_tuning_init(void)
{
	/* Fixed thresholds also stop glibc from raising them as it sees large
	 * blocks freed, which would make the resident size depend on history. */
	(void)mallopt(M_TRIM_THRESHOLD, (int)RW_HEAP_KEEP_FREE);
	(void)mallopt(M_MMAP_THRESHOLD, (int)RW_HEAP_MMAP_THRESHOLD);
}

void malloc_tuning_release(void)
{
	/* fordblks: the free bytes inside the arenas, their tops included */
	if (mallinfo2().fordblks <= RW_HEAP_KEEP_FREE)
		return;
	/* since glibc 2.8 this releases whole free pages inside the heap as
	 * well, not only at its top */
	(void)malloc_trim(0);
}
