/* The "processes" answer: the processes the daemon watches now (from its
 * own memory: the last sample, the peaks so far) merged with what the store
 * knows about them and, with "all", about every other process it recorded.
 *
 * The live side is copied on the loop (control_live_set); the merge runs
 * on the worker beside the store read, and is pure: it takes the store's
 * array and the copy, and gives the answer's array. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A watched process as the daemon knows it now. */
struct control_live {
	int64_t process_id;  /* its row in the store; 0 before the first write */
	int pid;
	int64_t start_time, started_at, uid, last_seen; /* -1 unknown */
	char *boot_id, *comm, *exe, *cmdline;           /* NULL unknown */
	char *cgroup, *memcg; /* as struct core_process's; NULL unknown */
	uint64_t private, resident, peak_private, peak_resident;
	int64_t vram;        /* GPU memory at the last GPU snapshot; -1: on no GPU */
	uint64_t peak_vram;
};

struct control_live_set {
	struct control_live *p;
	size_t n;
};

/* Accepts NULL (a void * for control_job's free_data). */
void control_live_set_free(void *set);

/* Puts the live values over a process object of the store (in place):
 * "watched": true, the last sample and GPU memory, the larger of the
 * peaks, no exit.
 * Returns 0 or -ENOMEM. */
int control_process_set_live(json_t *entry, const struct control_live *l);

/* A user's name for a uid, into buf, or NULL. */
typedef const char *(*control_user_name_t)(uid_t uid, char *buf, size_t size);

struct control_processes_query {
	bool all;          /* also processes not watched now */
	const char *sort;  /* "private", "resident" or "peak" */
	unsigned limit;
};

/* Merges: each live process, matched to its stored entry (by process_id,
 * else by pid and start time), is the stored entry with the live values
 * over it ("watched": true, the last sample, the larger peaks); a live
 * process the store has not written yet is built from the live values
 * (process_id, first_seen and last_census null).  With all, the stored
 * entries no live process matched follow ("watched": false), in the
 * store's order.  Watched processes come first, largest first by sort;
 * at most limit entries.  stored (an array of process objects, borrowed)
 * may be NULL.  user_name fills a missing "user" (may be NULL).  Returns
 * 0 with a new array in *ret, or -ENOMEM. */
int control_processes_merge(const json_t *stored, const struct control_live *live, size_t n_live,
			    const struct control_processes_query *q, control_user_name_t user_name, json_t **ret);
