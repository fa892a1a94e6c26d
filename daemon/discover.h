/* Discovery: which processes to follow.  Every DiscoverInterval the proc
 * root is listed and each process not yet followed has its status read (a
 * few microseconds, no page-table walk); those above MinPrivate that the
 * selectors pick are followed from then on, until they exit, up to
 * MaxProcesses at once.
 *
 * Discovery reads the proc root and decides; following (the store, the
 * exit watch, the census tier) is its caller's, through the callback. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "target.h"

struct watched;

/* A process discovery picked: the callback takes t over (it frees it when
 * it cannot follow it).  Returns 0, or a negative errno that ends the pass
 * (-ENOMEM). */
typedef int (*discover_follow_t)(void *userdata, struct target *t);

struct discover {
	int root_fd;                        /* the proc root (borrowed) */
	const struct daemon_config *config; /* the caller's, reloads included */
	struct target_identity id;          /* now_ms is set at each process */
	int self;                           /* the daemon's pid: never followed */
	discover_follow_t follow;
	void *userdata;

	/* discover.c's */
	uint64_t over_limit;                /* not followed: MaxProcesses reached */
	bool over_limit_logged;             /* ... told, until there is room again */
};

/* One pass over the proc root: each process that is not in w (nor the
 * daemon), not a kernel thread or a zombie, above MinPrivate and picked by
 * Watch= and Ignore= is handed to d->follow while w has room.  A process
 * that vanishes meanwhile is passed over.  Returns 0, or a negative errno
 * when the root cannot be listed or memory runs out (logged). */
int discover_pass(struct discover *d, const struct watched *w);

/* Whether the selectors of c still pick t (after a reload). */
bool discover_still_selected(const struct daemon_config *c, struct target *t);
