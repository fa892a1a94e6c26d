/* A map from pid to the process the daemon follows under it: open
 * addressing with linear probing, since discovery looks up every pid of
 * /proc every few seconds.  Values are opaque pointers owned by the
 * caller. */
#pragma once

#include <stddef.h>

#include "hashtab.h"

/* All zero is an empty map. */
struct pidmap {
	struct hashtab table; /* pid -> value */
};

void *pidmap_get(const struct pidmap *m, int pid);
/* Adds or replaces.  Returns 0 or -ENOMEM. */
int pidmap_put(struct pidmap *m, int pid, void *value);
/* Removes pid; returns its value or NULL. */
void *pidmap_remove(struct pidmap *m, int pid);
void pidmap_done(struct pidmap *m);

/* Iteration: for (size_t i = 0; pidmap_next(m, &i, &v);) ...  The map may
 * not change during it, except by pidmap_remove of the current entry,
 * after which the walk must restart (removal moves entries back). */
int pidmap_next(const struct pidmap *m, size_t *i, void **ret);
