/* The processes discovery passed over, and why: what lets a pass skip a
 * process that cannot yet be watched instead of reading it again.
 *
 * A process is known by its pid.  The instance behind it is kept right by
 * those who change the table: the proc connector's exit and fork events
 * (discover.c), a full pass that lists the proc root, and the statm
 * descriptor of a process below MinPrivate, which answers ESRCH once that
 * instance is gone even when the pid is reused.
 *
 * Memory: one 32-byte slot a process, in a table at most five eighths
 * full, so 51 to 102 bytes per known process (10,000 present: under
 * 1 MiB), and for a process below MinPrivate one descriptor while the
 * descriptor budget allows.
 *
 * discover-known.c is the only file that changes the table and its slots;
 * discovery reads a slot and changes it through the calls below. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "proc-parse.h"

enum known_kind {
	KNOWN_PASSED,  /* the selectors said no (or a kernel thread, a zombie): until it changes */
	KNOWN_SMALL,   /* picked but below MinPrivate: until its statm grows */
	KNOWN_WAITING, /* picked, no room (MaxProcesses): when there is room */
	KNOWN_DIRTY,   /* new or changed (the connector said so): to read at the next pass */
};

struct known_slot {
	uint64_t pid; /* the table's key */
	uint32_t size, resident, shared; /* KNOWN_SMALL: statm, in pages, as last read */
	int32_t statm_fd;                /* KNOWN_SMALL: statm kept open, or -1 */
	uint32_t seen;                   /* the last listing that showed it */
	uint8_t kind;
};

struct known {
	struct hashtab table;
	size_t dirty;  /* slots of KNOWN_DIRTY */
	size_t fds;    /* statm descriptors held */
};

void known_init(struct known *k);
/* Closes every descriptor, frees the table; k is empty afterwards. */
void known_done(struct known *k);

struct known_slot *known_get(const struct known *k, int pid);
/* pid's slot, now of kind (a descriptor it held closed unless it stays
 * KNOWN_SMALL); NULL when out of memory.  A slot pointer stays valid until
 * the next known_set or known_remove. */
struct known_slot *known_set(struct known *k, int pid, enum known_kind kind);
/* Forgets pid (its descriptor closed); false when it was not known. */
bool known_remove(struct known *k, int pid);

/* Takes fd as s's statm descriptor, with statm as read through it. */
void known_keep_statm(struct known *k, struct known_slot *s, int fd, const struct proc_statm *statm);
/* The listing numbered listing showed s (known_sweep keeps it). */
void known_seen(struct known_slot *s, uint32_t listing);
/* Whether statm is what s last read. */
bool known_statm_same(const struct known_slot *s, const struct proc_statm *statm);

size_t known_count(const struct known *k);
size_t known_bytes(const struct known *k);

/* The pids of the slots whose kind is in the mask (1u << kind), newly
 * allocated in *ret (NULL when none) and their count in *ret_n, for a walk
 * that changes the table.  Returns 0 or -ENOMEM. */
int known_pids(const struct known *k, unsigned kinds, int **ret, size_t *ret_n);

/* Forgets every process that the listing numbered seen did not show.
 * Returns how many. */
size_t known_sweep(struct known *k, uint32_t seen);
