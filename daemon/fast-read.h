/* What the fast tier (fast-tier.c) reads of a watched process, where the
 * platforms differ: the tier's slots, repeats, accumulators and triggers
 * are the same everywhere, and ask this header for the figures.
 *
 * linux/fast-read.c: statm kept open and read every round (a microsecond
 * or two), compared as text by the tier; status when statm moved (the
 * figures).  There is nothing to do once per round.
 *
 * windows/fast-read.c: no descriptor per process: once per round, one
 * snapshot of every process (windows/win-procs.h), in which each watched
 * process is looked up by pid and creation time; gone from it, it has
 * exited.  Its commit (PagefileUsage / PrivatePageCount) is the private
 * figure, its working set the resident one; Windows tells no swap per
 * process (the paging file's part of the commit is not told apart). */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct target;

/* The platform's state for the rounds; NULL until the first round. */
struct fast_read;

/* Starts a round: on Windows, the snapshot every sample of the round
 * looks in (made at the first round).  Returns 0, or a negative errno
 * (logged once): the round's samples then fail. */
int fast_read_round(struct fast_read **r);
/* Accepts NULL, returns NULL. */
struct fast_read *fast_read_free(struct fast_read *r);

/* A descriptor of t's statm to keep open, or -ESRCH when the process
 * exited, or another negative errno (none: the tier reads the figures
 * alone every round); -EOPNOTSUPP where there is no such file. */
int fast_read_open_statm(const struct target *t);
/* The text of the statm behind fd, into buf (size bytes), its length in
 * *ret_len.  Returns 0, -ESRCH when the process has exited, or another
 * negative errno. */
int fast_read_statm_text(int fd, char *buf, size_t size, size_t *ret_len);

/* The figures of t now, in bytes: private (anonymous resident and swap on
 * Linux, the commit on Windows), resident, swap.  Returns 0, -ESRCH when
 * it has exited (or is a zombie), or another negative errno. */
int fast_read_figures(struct fast_read *r, const struct target *t, uint64_t *ret_private, uint64_t *ret_resident,
		      uint64_t *ret_swap);
