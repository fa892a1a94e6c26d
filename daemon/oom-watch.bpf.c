/* The kernel side of the OOM watch (oom-watch.h): an OOM kill as the
 * kernel makes it.
 *
 *   signal_generate a SIGKILL the kernel sends of its own (its siginfo is
 *                   SEND_SIG_PRIV; a kill -9 from a user carries a real
 *                   one): noted by process.  The OOM killer sends it just
 *                   before it marks the victim (mm/oom_kill.c,
 *                   __oom_kill_process).
 *   mark_victim     the OOM killer chose this task: its process, name,
 *                   owner, address space's size, memory cgroup and the
 *                   group up its tree with the least headroom (the one
 *                   whose limit was hit), their usage and limits, and
 *                   whether the SIGKILL noted came with it.  It fires for
 *                   a victim that was already exiting too, which the
 *                   kernel marks without a kill.
 *
 * Only these field offsets are taken from the running kernel (CO-RE); the
 * struct definitions below declare the fields used and nothing else.
 *
 * This file alone is under the BSD 2-clause license or the GPL version 2
 * (debian/copyright), as the change watch's program: tracing programs
 * that read kernel memory must be GPL-compatible. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "oom-watch-event.h"

struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup_subsys_state *subsys[16];
} __attribute__((preserve_access_index));

struct page_counter {
	struct {
		long counter;
	} usage;
	unsigned long max;
	struct page_counter *parent;
} __attribute__((preserve_access_index));

struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct page_counter memory;
} __attribute__((preserve_access_index));

struct mm_struct {
	unsigned long total_vm;
} __attribute__((preserve_access_index));

struct task_struct {
	int tgid;
	char comm[16];
	struct mm_struct *mm;
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

enum cgroup_subsys_id {
	memory_cgrp_id = 4, /* the running kernel's value is taken */
};

/* SEND_SIG_PRIV: the siginfo the kernel passes for a signal of its own */
#define SEND_SIG_PRIV ((void *)1)
#define SIGKILL 9
/* a kernel SIGKILL this close before the mark is the OOM killer's */
#define KILL_WINDOW_NS (1000ull * 1000 * 1000)
/* memory cgroups read up the tree at most (the verifier wants a bound) */
#define MAX_LEVELS 16

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} events SEC(".maps");

/* process -> the time of the kernel's last SIGKILL to it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} kernel_kills SEC(".maps");

static __always_inline struct mem_cgroup *memcg_of(struct page_counter *c)
{
	return (struct mem_cgroup *)((char *)c - bpf_core_field_offset(struct mem_cgroup, memory));
}

static __always_inline __u64 css_id(struct cgroup_subsys_state *css)
{
	return BPF_CORE_READ(css, cgroup, kn, id);
}

SEC("tp_btf/mark_victim")
int BPF_PROG(on_mark_victim, struct task_struct *task, unsigned int uid)
{
	struct oom_watch_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 tgid = BPF_CORE_READ(task, tgid);
	__u64 now = bpf_ktime_get_ns(), *killed_at = bpf_map_lookup_elem(&kernel_kills, &tgid);
	__u64 kill_time = killed_at ? *killed_at : 0;

	if (killed_at)
		bpf_map_delete_elem(&kernel_kills, &tgid);
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = OOM_WATCH_VICTIM;
	e->pid = tgid;
	e->uid = uid;
	e->time_ns = now;
	/* the kill comes within the same call, microseconds before */
	if (kill_time && now - kill_time < KILL_WINDOW_NS) {
		e->killed = 1;
		e->kill_time_ns = kill_time;
	}
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	e->total_vm = BPF_CORE_READ(task, mm, total_vm);

	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css = NULL;
	if (id >= 0 && id < 16)
		css = BPF_CORE_READ(task, cgroups, subsys[id]);
	if (css) {
		struct mem_cgroup *memcg = (struct mem_cgroup *)css;
		struct page_counter *c = &memcg->memory;
		__u64 least = ~0ull;
		e->memcg_id = css_id(css);
		e->memcg_usage = BPF_CORE_READ(c, usage.counter);
		e->memcg_max = BPF_CORE_READ(c, max);
		for (int i = 0; i < MAX_LEVELS && c; i++) {
			__u64 usage = BPF_CORE_READ(c, usage.counter), max = BPF_CORE_READ(c, max);
			__u64 room = max > usage ? max - usage : 0;
			if (room < least) {
				least = room;
				e->limit_id = css_id(&memcg_of(c)->css);
				e->limit_usage = usage;
				e->limit_max = max;
			}
			e->levels = i + 1;
			c = BPF_CORE_READ(c, parent);
		}
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, void *info, struct task_struct *task, int group, int result)
{
	if (sig != SIGKILL || info != SEND_SIG_PRIV)
		return 0;
	__u32 tgid = BPF_CORE_READ(task, tgid);
	__u64 now = bpf_ktime_get_ns();
	bpf_map_update_elem(&kernel_kills, &tgid, &now, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
