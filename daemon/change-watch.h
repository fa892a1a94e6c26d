/* The change watch: the kernel raises a flag for a watched process when
 * the figures its statm shows may have moved, so a sample round reads
 * statm only for the processes whose flag is up (fast-tier.c); and
 * another when its mappings may have, so the steady check before a census
 * reads maps only then (census-take.c).
 *
 * A BPF program on four tracepoints raises the flags
 * (change-watch.bpf.c): rss_stat, fired by every change of an address
 * space's resident counters; mmap_lock_acquire_returned and
 * mmap_lock_released, as an address space's size and mappings change only
 * under its mmap lock; sched_process_exit.  The flags live in an array
 * the daemon maps into its memory: looking at one is a load, not a system
 * call.  A flag may be up when nothing changed (a read of the address
 * space, a counter that moved and came back); it is never down when statm
 * changed, as the tracepoints fire after the counters moved, nor when the
 * mappings did, as the lock's write hold raises it before they move.
 *
 * It needs CAP_BPF and CAP_PERFMON (or root), a kernel with BTF
 * (/sys/kernel/btf/vmlinux) and the three tracepoints (Linux 5.10 and
 * later: mmap_lock_released came last).  Without them change_watch_new
 * fails and every process is read every round.  Windows has no such
 * events: windows/change-watch.c always fails (-EOPNOTSUPP). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct change_watch;

/* Loads and attaches the program, for up to capacity processes at once.
 * Returns 0, or a negative errno: -EPERM (no CAP_BPF/CAP_PERFMON), -ENOENT
 * (no BTF, no such tracepoint), -EXDEV (we run in a pid namespace
 * below the first: the kernel's pids are not ours), -EINVAL (capacity 0
 * or above RW_TARGETS_MAX), others from bpf(2). */
int change_watch_new(uint32_t capacity, struct change_watch **ret);
struct change_watch *change_watch_free(struct change_watch *w);

/* Starts watching process pid: returns its flag's index (1 and up), its
 * flag up, or 0 when it cannot be watched (capacity reached, the kernel's
 * map full): then it must be read every round. */
uint32_t change_watch_add(struct change_watch *w, int pid);
/* Stops watching pid, whose flag was index; the index is free again. */
void change_watch_remove(struct change_watch *w, int pid, uint32_t index);

/* What a flag says: the process may have changed what statm shows; its
 * swap (status's VmSwap) moved, which statm need not show; its mappings
 * may have changed (made, removed, resized, moved, protected
 * differently, named: all but the names of their files, which a rename
 * changes without touching the address space); CHANGE_MOVED's events
 * again, for the census, whose takes are apart from the sample rounds'
 * (a page faulted in, freed, swapped or reclaimed, the mmap lock held for
 * writing, an exit).  No event tells a page of a shared mapping made
 * dirty where it was resident, nor pages the process shares with another
 * becoming its own when the other lets them go (a child's exit): those
 * move smaps_rollup's split of private and shared with no bit raised. */
#define CHANGE_MOVED 1u
#define CHANGE_SWAP 2u
#define CHANGE_MAPPINGS 4u
#define CHANGE_CENSUS 8u

/* Which of bits flag index said (0: nothing), lowering them and only
 * them.  Take them before reading: a change after the take raises them
 * again for the next reader.  Index 0 (none) says every bit asked. */
unsigned change_watch_take(struct change_watch *w, uint32_t index, unsigned bits);

/* Whether CHANGE_MAPPINGS can be trusted: the kernel's lock events say
 * "write" (Linux 6.12 and later).  Otherwise every release of the lock
 * raises it, and it says little. */
bool change_watch_sees_mappings(const struct change_watch *w);
/* Raises bits of flag index again (a caller that took them too early). */
void change_watch_raise(struct change_watch *w, uint32_t index, unsigned bits);

/* How many processes it watches; how many more it can. */
uint32_t change_watch_count(const struct change_watch *w);
uint32_t change_watch_room(const struct change_watch *w);
