/* The watched set: the processes the daemon follows now, in a list (the
 * order discovery found them, newest first) and a map by pid (discovery
 * asks about every pid of the proc root every DiscoverInterval).
 *
 * watched.c is the only file that links or unlinks a target; the others
 * walk the set with watched_first/watched_next and look pids up with
 * watched_find.  It does no I/O and knows no event loop: what following
 * and letting go mean for the store, the census tier and the exit watch is
 * the manager's (manager.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct target;
struct watched;

/* A target's place in the set's list (struct target's link): changed by
 * watched.c only; the others walk with watched_next. */
struct watched_link {
	struct target *prev, *next;
};

/* How many processes came and went, over the daemon's life. */
struct watched_counts {
	unsigned now;       /* watched now */
	uint64_t followed;  /* added */
	uint64_t exited;    /* removed at their exit */
	uint64_t stopped;   /* removed while still running (no longer selected, shutdown) */
};

/* An empty set.  Returns NULL when out of memory. */
struct watched *watched_new(void);
/* Frees the set, not the targets still in it (the caller removes them
 * first); accepts NULL, returns NULL. */
struct watched *watched_free(struct watched *w);

/* Whether one more process may be followed: fewer than max are now. */
bool watched_has_room(const struct watched *w, unsigned max);

/* Adds t (not owned: the caller frees it after watched_remove) when fewer
 * than max processes are watched.  Returns 0, -EEXIST when its pid is in
 * the set already (the instance there must be removed first: a pid reused
 * by a new process is a new target), -ENOSPC at max, -ENOMEM. */
int watched_add(struct watched *w, struct target *t, unsigned max);

/* Takes t out of the set, counting it as exited or stopped.  t must be in
 * the set. */
void watched_remove(struct watched *w, struct target *t, bool exited);

/* The watched process with that pid, or NULL. */
struct target *watched_find(const struct watched *w, int pid);

/* The walk: for (t = watched_first(w); t; t = watched_next(t)).  To remove
 * the current target, take watched_next(t) before removing it. */
struct target *watched_first(const struct watched *w);
struct target *watched_next(const struct target *t);

unsigned watched_count(const struct watched *w);
void watched_get_counts(const struct watched *w, struct watched_counts *ret);
