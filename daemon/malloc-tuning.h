/* The daemon's own malloc tuning: when glibc gives its free memory back.
 *
 * The daemon holds little for long (the watched processes, the queued
 * rows) and makes much that is short-lived (censuses, SQLite's statement
 * memory).  glibc's defaults hand the top of the heap back whenever more
 * than 128 KiB of it is free, so a store tick that ran a thousand statements
 * moved the heap's end twice for each: every growth faulted its pages back
 * in, every shrink flushed the TLB of each CPU the daemon's threads ran on
 * (BENCHMARKS.md: a fifth of the daemon's CPU at 1,000 processes).  Here
 * the heap gives memory back only when a batch of censuses left much of it
 * free, and then all of it.  On Windows (windows/malloc-tuning.c) there
 * is nothing to tune: the process heap decommits free pages itself. */
#pragma once

/* At start, before the first allocation that matters. */
void malloc_tuning_init(void);

/* After short-lived work freed its memory (a batch of censuses written):
 * gives the free pages back when more than RW_HEAP_KEEP_FREE bytes are
 * free. */
void malloc_tuning_release(void);
