/* The heap walkers, one line each: the registry the heap pass
 * (heap-pass.c) runs, in this order, on every census that reads memory.
 *
 * A walker is a function
 *
 *     int heap_walk_NAME(const struct heap_walk_input *in, struct heap_walk *w);
 *
 * in scanner/heap-NAME.c, which reads one allocator's structures and
 * describes its memory as spans (heap-walk.h says what it may read and
 * what it returns).  Adding one is its file and its line below: the line
 * declares the function and registers it, so a walker cannot be declared
 * and forgotten, nor registered without its file (the link fails). */
#pragma once

#include "heap-walk.h"

/* X(NAME): heap_walk_NAME, whose allocator is named NAME in messages. */
#define HEAP_WALKERS(X) \
	X(glibc)        \
	/* the list ends here */

#define HEAP_WALKER_DECLARE_(name) int heap_walk_##name(const struct heap_walk_input *in, struct heap_walk *w);
HEAP_WALKERS(HEAP_WALKER_DECLARE_)
#undef HEAP_WALKER_DECLARE_
