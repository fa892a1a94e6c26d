/* The fast tier: every SampleInterval, the statm file of each watched
 * process, kept open (a microsecond or two, no page-table walk), and its
 * status when statm changed or once per StoreInterval, gathered into min,
 * max and last until the store cycle writes one row of it (sample.h).
 *
 * A round walks an array of slots, one per watched process, that holds
 * what a sample of a process that changed nothing needs: its statm
 * descriptor, the text statm read last time, and until when nothing else
 * can fall due (its status, a census trigger).  When statm reads the same
 * text before then, the sample only counts one more repeat in the slot and
 * leaves the target alone: on a host of mostly idle processes, the round
 * then reads one small array instead of a thousand scattered targets.
 * Repeats are added to the target's accumulator before anything reads it:
 * its next full sample, its row, a client's description of it (fast_tier_settle).
 *
 * What is read differs by platform (fast-read.h): on Windows there is no
 * statm, so every sample is a full one, its figures looked up in the
 * round's one snapshot of every process.
 *
 * fast-tier.c is the only file that changes a target's fast part (struct
 * fast_target) and the slots; the store cycle and letting a process go
 * take its row through fast_tier_queue. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc-parse.h"
#include "sample.h"
#include "steady.h"

struct change_watch;
struct fast_read;
struct target;
struct writer;

/* The fast tier's part of a watched process (struct target's fast).
 * Others read the last sample (private, resident, swap: a repeat found the
 * same figures, so they are current without fast_tier_settle) and, in
 * tests, the accumulator; they change nothing here. */
struct fast_target {
	int statm_fd;                     /* /proc/PID/statm kept open; -1: status only */
	unsigned slot;                    /* its place in the slots */
	uint64_t private, resident, swap; /* the last sample */
	bool status_read;                 /* status was read since following began */
	struct proc_statm status_statm;   /* statm as it was when status was last read */
	int64_t status_at_ms;             /* ... and when */
	struct sample_acc acc;            /* the samples since the last row */
};

/* The statm text a slot keeps: the processes of a host up to terabytes of
 * address space fit (about 40 bytes; a slot is 128 bytes); a longer text is never found
 * unchanged, its process takes the full sample every time. */
#define FAST_STATM_KEPT 82

struct fast_slot {
	struct target *target;
	int64_t status_due_ms;  /* unix ms: when status is read again even if statm stays the same */
	uint64_t quiet_until;   /* monotonic us: until then no census falls due while private stays; 0: none */
	int64_t repeated_ms;    /* unix ms: the last of them */
	uint32_t repeats;       /* samples that found nothing changed, not yet in the target */
	uint32_t watch;         /* its flag in the change watch; 0: none, statm read every round */
	int statm_fd;           /* the target's; -1: status only, never unchanged */
	bool recheck;           /* statm moved with its flag down: the flag must be up by the next round */
	uint8_t len;            /* of statm; 0: none kept */
	char statm[FAST_STATM_KEPT];
};

struct fast_tier {
	uint64_t sample_errors; /* reads that failed other than by an exit */
	struct change_watch *watch; /* NULL: every statm read every round */
	struct fast_read *read;     /* the platform's reads (fast-read.h) */
	uint32_t watch_misses;      /* processes whose change the watch missed, since it started */
	uint64_t round_us_max;  /* the longest sample round since the start (wall time) */
	struct fast_slot *slots;
	size_t n_slots, allocated;
};

/* A target's fast part before its statm is opened (target_new): no
 * descriptor. */
void fast_tier_target_init(struct target *t);
/* Keeps t's statm open (t->proc_dir_fd open).  Out of descriptors
 * (EMFILE, ENFILE, or fewer than RW_FD_RESERVE left free) it has none, and
 * every sample reads status alone, which gives every figure.  Returns 0,
 * or -ESRCH when the process exited. */
int fast_tier_open_statm(struct target *t);
/* Closes t's statm (the slot, if any, must be gone first); t samples from
 * status alone from then on. */
void fast_tier_target_done(struct target *t);

/* Frees the slots (not the targets) and the change watch. */
void fast_tier_done(struct fast_tier *f);

/* Starts (on) or stops the change watch, for up to capacity processes:
 * with it, a round reads statm only for a process the kernel says may
 * have changed (change-watch.h), and the slots it cannot take are read
 * every round.  Returns 0, or the negative errno change_watch_new gave
 * (the tier then reads every process every round). */
int fast_tier_watch(struct fast_tier *f, bool on, uint32_t capacity);
/* Whether the change watch runs; whether it tells changes of mappings
 * too (change_watch_sees_mappings). */
bool fast_tier_watching(const struct fast_tier *f);
bool fast_tier_sees_mappings(const struct fast_tier *f);

/* What the change watch says of t's mappings and memory since the last
 * take, their bits lowered: taken just before t's census reads them.
 * UNKNOWN when t is not watched or the watch cannot tell
 * (change_watch_sees_mappings). */
enum steady_mappings fast_tier_take_mappings(struct fast_tier *f, const struct target *t);

/* Gives t a slot.  Returns 0 or -ENOMEM. */
int fast_tier_add(struct fast_tier *f, struct target *t);
/* Takes t's slot away, its repeats first added to t.  The last slot moves
 * into its place: a round that walks the slots from the end may remove
 * the one it sampled. */
void fast_tier_remove(struct fast_tier *f, struct target *t);

size_t fast_tier_count(const struct fast_tier *f);

/* Samples the process of slot i at now_ms (unix ms) and now (monotonic
 * us), reading its status at least every status_every_ms.  Returns 1 when
 * statm read the same, or the change watch says it did not move, and
 * nothing was due (the target is not touched and *ret_target not set);
 * otherwise sets *ret_target and returns 0 (a full
 * sample: the caller updates the census triggers and then calls
 * fast_tier_quiet), -ESRCH when the process has exited (the caller lets it
 * go), or another negative errno (counted, the first one logged). */
int fast_tier_sample(struct fast_tier *f, size_t i, int64_t now_ms, uint64_t now, int64_t status_every_ms,
		     struct target **ret_target);

/* After a full sample of t: no census can fall due before until (monotonic
 * us; schedule_quiet_until) unless its memory changes. */
void fast_tier_quiet(struct fast_tier *f, const struct target *t, uint64_t until);
/* Something other than a sample changed what t's census triggers wait for
 * (a census, a request, a mark, the GPU memory): its next sample is a full
 * one.  fast_tier_wake_all: every process's (a reload). */
void fast_tier_wake(struct fast_tier *f, const struct target *t);
void fast_tier_wake_all(struct fast_tier *f);

/* Adds t's repeats to t: before anything reads its sample fields, peaks or
 * last-seen time. */
void fast_tier_settle(struct fast_tier *f, struct target *t);

/* Before the samples of a round: on Windows, the snapshot of every
 * process they look in (fast-read.h).  Returns 0 or a negative errno
 * (logged): the round's samples then fail. */
int fast_tier_begin_round(struct fast_tier *f);

/* A sample round (the fast tier over the watched set and the census pass
 * after it) took us microseconds: kept when the longest so far. */
void fast_tier_round(struct fast_tier *f, uint64_t us);

/* Queues on writer the row of what was gathered about t since the last
 * one, ending at now_ms; nothing when there was no sample. */
void fast_tier_queue(struct fast_tier *f, struct target *t, struct writer *writer, int64_t now_ms);
