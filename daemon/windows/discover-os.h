/* Windows's discovery state (discover.h): the snapshot reader, and the
 * last pass's snapshot with what the selectors said of each of its
 * processes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "target.h"
#include "win-procs.h"

struct discover {
	int root_fd;                        /* -1: Windows has no proc root */
	const struct daemon_config *config; /* the caller's, reloads included */
	int self;                           /* the daemon's pid: never followed */
	discover_follow_t follow;
	void *userdata;
	char *boot_id;                      /* the boot's, for the store (discover_open) */

	/* discover.c's */
	uint64_t over_limit;                /* not followed: MaxProcesses reached */
	bool over_limit_logged;             /* ... told, until there is room again */
	struct win_procs_reader reader;
	struct win_procs *last;             /* the last pass's snapshot; NULL before the first, after a reload */
	uint8_t *verdicts;                  /* the selectors' verdict on each of last's processes */
	uint64_t passes;
	uint64_t judged;                    /* processes the selectors were asked about */
};
