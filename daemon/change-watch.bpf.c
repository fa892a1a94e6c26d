/* The kernel side of the change watch (change-watch.h): it raises a
 * watched process's flag when the figures statm shows may have moved, and
 * a second bit when its mappings may have; a third is raised with the
 * first, for the census, which the sample rounds leave alone.
 *
 *   rss_stat           every change of an address space's resident
 *                      counters (file, anonymous, shared memory, swap):
 *                      faults, unmaps, reclaim, swap, exit.  The kernel
 *                      fires it after the counter moved.
 *   mmap_lock_acquire_returned, mmap_lock_released
 *                      an address space's mappings, its size and data
 *                      (statm's first and sixth figures) change only
 *                      under its mmap lock held for writing (mmap, munmap,
 *                      brk, mremap, mprotect, madvise that splits, exec,
 *                      and since Linux 6.5 a stack's growth).  Taking it
 *                      for writing raises the mappings bit (a check that
 *                      comes while they change sees it); releasing it
 *                      raises both.  An munmap gives up the write hold by
 *                      downgrading it to a read hold, which no event tells:
 *                      the release of that read hold sees the address
 *                      space's lock sequence (mm_lock_seq, Linux 6.4 and
 *                      later with per-VMA locks) moved since the last
 *                      release seen and raises both.  Where the second
 *                      argument is not that bool (kernels before 6.12
 *                      pass the memory cgroup's path first) user space
 *                      leaves writes_only false and every release raises
 *                      both: one more read, never a change missed; user
 *                      space then does not trust the mappings bit.
 *   sched_process_exit a thread's exit: an exiting process's statm turns
 *                      to zeros and then to "no such process".
 *
 * An address space is named by its owner's process (mm->owner, the
 * memory cgroup's), and by the current process when it is the one whose
 * address space changed and not the owner (a child sharing it, or a
 * process past exit_mm, when the owner is already gone).
 *
 * Only these field offsets are taken from the running kernel (CO-RE);
 * the struct definitions below declare the fields used and nothing else.
 *
 * This file alone is under the BSD 2-clause license or the GPL version 2
 * (debian/copyright): the kernel lets a program call bpf_get_current_task_btf
 * only under a GPL-compatible license. */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

struct mm_struct;

struct task_struct {
	int tgid;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct mm_struct {
	struct task_struct *owner;
} __attribute__((preserve_access_index));

/* mm_lock_seq: a seqcount_t since Linux 6.13, an int from 6.4 to 6.12,
 * absent without per-VMA locks; whichever the kernel has is read */
struct mm_struct___seqcount {
	struct {
		unsigned int sequence;
	} mm_lock_seq;
} __attribute__((preserve_access_index));

struct mm_struct___int {
	int mm_lock_seq;
} __attribute__((preserve_access_index));

/* process (tgid) -> its slot's index in flags, set from user space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1); /* sized by user space before the load */
	__type(key, __u32);
	__type(value, __u32);
} watched SEC(".maps");

/* one flag per index (0 unused), mapped into the daemon: bit 0,
 * something moved; bit 1, the swap counter moved (status tells it, statm
 * does not); bit 2, the mappings may have moved; bit 3, something moved,
 * for the census (raised with bit 0, which the sample rounds lower) */
#define MOVED 1u
#define SWAP_MOVED 2u
#define MAPS_MOVED 4u
#define CENSUS_MOVED 8u
/* enum mm_counter's MM_SWAPENTS, the same since Linux 4.5 */
#define MM_SWAPENTS 2
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* as watched, plus index 0 */
	__type(key, __u32);
	__type(value, __u64);
} flags SEC(".maps");

/* per index, the lock sequence of its address space at the last release
 * seen */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* as flags */
	__type(key, __u32);
	__type(value, __u32);
} lock_seq SEC(".maps");

/* set before the load: the mmap lock events' second argument is "write" */
const volatile int writes_only = 0;

static __always_inline void raise_flag(__u32 index, __u64 bits)
{
	__u64 *flag = bpf_map_lookup_elem(&flags, &index);

	/* bits already up are left alone: no store, the cache line stays
	 * shared; else an atomic or, as the daemon clears the flag meanwhile */
	if (flag && (*flag & bits) != bits)
		__sync_fetch_and_or(flag, bits);
}

/* The lock sequence of mm, or false when the kernel has none. */
static __always_inline bool read_lock_seq(struct mm_struct *mm, __u32 *seq)
{
	struct mm_struct___seqcount *s = (void *)mm;
	struct mm_struct___int *i = (void *)mm;

	if (bpf_core_field_exists(s->mm_lock_seq.sequence)) {
		*seq = BPF_CORE_READ(s, mm_lock_seq.sequence);
		return true;
	}
	if (bpf_core_field_exists(i->mm_lock_seq)) {
		*seq = (__u32)BPF_CORE_READ(i, mm_lock_seq);
		return true;
	}
	return false;
}

/* For a read release: whether mm's lock sequence moved since the last
 * release index saw, keeping the new one.  Two releases at once may both
 * say so: one more read, never a change missed. */
static __always_inline bool seq_moved(__u32 index, struct mm_struct *mm)
{
	__u32 seq, *was = bpf_map_lookup_elem(&lock_seq, &index);

	if (!was || !read_lock_seq(mm, &seq) || *was == seq)
		return false;
	*was = seq;
	return true;
}

/* bits for the process watched as tgid; with check_seq, only when mm's
 * lock sequence moved */
static __always_inline void raise_process(__u32 tgid, __u64 bits, struct mm_struct *mm, bool check_seq)
{
	__u32 *index = bpf_map_lookup_elem(&watched, &tgid);

	if (index && (!check_seq || seq_moved(*index, mm)))
		raise_flag(*index, bits);
}

static __always_inline void moved(struct mm_struct *mm, __u64 bits, bool check_seq)
{
	struct task_struct *owner, *current;

	if (!mm)
		return;
	owner = mm->owner;
	if (owner)
		raise_process(owner->tgid, bits, mm, check_seq);
	current = bpf_get_current_task_btf();
	if (current->mm == mm && (!owner || current->tgid != owner->tgid))
		raise_process(current->tgid, bits, mm, check_seq);
}

SEC("tp_btf/rss_stat")
int rss_moved(__u64 *ctx)
{
	moved((struct mm_struct *)ctx[0], (int)ctx[1] == MM_SWAPENTS ? MOVED | SWAP_MOVED | CENSUS_MOVED : MOVED | CENSUS_MOVED,
	      false);
	return 0;
}

SEC("tp_btf/mmap_lock_acquire_returned")
int map_locked(__u64 *ctx)
{
	/* (mm, write, success) */
	if (writes_only && ctx[1] && ctx[2])
		moved((struct mm_struct *)ctx[0], MAPS_MOVED, false);
	return 0;
}

SEC("tp_btf/mmap_lock_released")
int map_moved(__u64 *ctx)
{
	if (!writes_only || ctx[1])
		moved((struct mm_struct *)ctx[0], MOVED | MAPS_MOVED | CENSUS_MOVED, false);
	else
		moved((struct mm_struct *)ctx[0], MOVED | MAPS_MOVED | CENSUS_MOVED, true);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int exited(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	__u32 tgid = task->tgid, *index = bpf_map_lookup_elem(&watched, &tgid);

	if (index)
		raise_flag(*index, MOVED | SWAP_MOVED | MAPS_MOVED | CENSUS_MOVED);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
