/* The kernel side of the process watch (process-watch.h): the life of
 * each process as the scheduler sees it, one small record each.
 *
 *   sched_process_fork  a new task: told when it leads a thread group of
 *                       its own (a new process), not for a new thread nor
 *                       a kernel thread
 *   sched_process_exec  a program loaded: told by thread group, as an exec
 *                       from any thread leaves one thread, the leader
 *   task_rename         a new comm (prctl PR_SET_NAME, a write to
 *                       /proc/PID/comm): told for the leader only, whose
 *                       name the selectors read
 *   sched_process_exit  a task's exit: told for the leader only, as the
 *                       proc connector tells it
 *
 * A record the ring has no room for is counted in lost, which the daemon
 * reads through the mapped .bss: it then lists every process at its next
 * pass, as nothing else could tell it what the lost records said.
 *
 * Only these field offsets are taken from the running kernel (CO-RE); the
 * struct definitions below declare the fields used and nothing else.
 *
 * This file alone is under the BSD 2-clause license or the GPL version 2
 * (debian/copyright), as the change watch's program: tracing programs
 * that read kernel memory must be GPL-compatible. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "process-watch-event.h"

struct task_struct {
	unsigned int flags;
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

/* include/linux/sched.h: a kernel thread has no user memory to watch */
#define PF_KTHREAD 0x00200000

/* sized by the daemon before the load (bpf_map__set_max_entries) */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

__u64 lost = 0;

static __always_inline void tell(__u32 kind, int tgid)
{
	struct process_watch_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		return;
	}
	e->kind = kind;
	e->pid = tgid;
	bpf_ringbuf_submit(e, 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	if (child->pid != child->tgid || (child->flags & PF_KTHREAD))
		return 0;
	tell(PROCESS_WATCH_NEW, child->tgid);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task)
{
	tell(PROCESS_WATCH_EXEC, task->tgid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task)
{
	if (task->pid != task->tgid || (task->flags & PF_KTHREAD))
		return 0;
	tell(PROCESS_WATCH_RENAMED, task->tgid);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	if (task->pid != task->tgid || (task->flags & PF_KTHREAD))
		return 0;
	tell(PROCESS_WATCH_GONE, task->tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
