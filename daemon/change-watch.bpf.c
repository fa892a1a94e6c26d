/* The kernel side of the change watch (change-watch.h): it raises a
 * watched process's flag when the figures statm shows may have moved.
 *
 *   rss_stat           every change of an address space's resident
 *                      counters (file, anonymous, shared memory, swap):
 *                      faults, unmaps, reclaim, swap, exit.  The kernel
 *                      fires it after the counter moved.
 *   mmap_lock_released every release of an address space's mmap lock
 *                      held for writing: its size and data (statm's first
 *                      and sixth figures) change only under it (mmap,
 *                      munmap, brk, mremap, mprotect, exec, and since
 *                      Linux 6.5 a stack's growth).  Where the second
 *                      argument is not that bool (kernels before 6.12
 *                      pass the memory cgroup's path first) user space
 *                      leaves writes_only false and every release counts:
 *                      one more read of statm, never a change missed.
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
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct mm_struct;

struct task_struct {
	int tgid;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct mm_struct {
	struct task_struct *owner;
} __attribute__((preserve_access_index));

/* process (tgid) -> its slot's index in flags, set from user space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1); /* sized by user space before the load */
	__type(key, __u32);
	__type(value, __u32);
} watched SEC(".maps");

/* one flag per index (0 unused), mapped into the daemon: bit 0, something
 * moved; bit 1, the swap counter moved (status tells it, statm does not) */
#define MOVED 1u
#define SWAP_MOVED 2u
/* enum mm_counter's MM_SWAPENTS, the same since Linux 4.5 */
#define MM_SWAPENTS 2
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* as watched, plus index 0 */
	__type(key, __u32);
	__type(value, __u64);
} flags SEC(".maps");

/* set before the load: mmap_lock_released's second argument is "write" */
const volatile int writes_only = 0;

static __always_inline void raise_flag(__u32 index, __u64 bits)
{
	__u64 *flag = bpf_map_lookup_elem(&flags, &index);

	/* bits already up are left alone: no store, the cache line stays
	 * shared; else an atomic or, as the daemon clears the flag meanwhile */
	if (flag && (*flag & bits) != bits)
		__sync_fetch_and_or(flag, bits);
}

static __always_inline void raise_process(__u32 tgid, __u64 bits)
{
	__u32 *index = bpf_map_lookup_elem(&watched, &tgid);

	if (index)
		raise_flag(*index, bits);
}

static __always_inline void moved(struct mm_struct *mm, __u64 bits)
{
	struct task_struct *owner, *current;

	if (!mm)
		return;
	owner = mm->owner;
	if (owner)
		raise_process(owner->tgid, bits);
	current = bpf_get_current_task_btf();
	if (current->mm == mm && (!owner || current->tgid != owner->tgid))
		raise_process(current->tgid, bits);
}

SEC("tp_btf/rss_stat")
int rss_moved(__u64 *ctx)
{
	moved((struct mm_struct *)ctx[0], (int)ctx[1] == MM_SWAPENTS ? MOVED | SWAP_MOVED : MOVED);
	return 0;
}

SEC("tp_btf/mmap_lock_released")
int map_moved(__u64 *ctx)
{
	if (!writes_only || ctx[1])
		moved((struct mm_struct *)ctx[0], MOVED);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int exited(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];

	raise_process(task->tgid, MOVED);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
