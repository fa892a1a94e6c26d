/* The change watch (change-watch.h): loading the BPF program, the map of
 * watched processes, and the flags mapped into our memory. */
#include "change-watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf-setup.h"
#include "change-watch.skel.h"
#include "fileio.h"
#include "limits.h"
#include "log.h"
#include "macro.h"

struct change_watch {
	struct change_watch_bpf *bpf;
	uint64_t *flags;      /* capacity + 1 of them, mapped from the kernel's array */
	size_t flags_size;    /* of the mapping */
	int watched_fd;       /* the map pid -> index */
	uint32_t capacity;
	uint32_t *free_index; /* a stack of the indexes not in use */
	uint32_t n_free;
	bool sees_mappings;   /* the mappings bit can be trusted */
};

/* Whether argument arg (from 0: the address space, after the context) of
 * the tracepoint whose BTF typedef is name is a bool: the mmap lock's
 * events pass "write" second since Linux 6.12, the memory cgroup's path
 * there before. */
static bool tracepoint_arg_is_bool(const struct btf *btf, const char *name, unsigned arg)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	/* typedef -> pointer -> (void *, struct mm_struct *, bool, ...) */
	if (t && btf_is_typedef(t))
		t = btf__type_by_id(btf, t->type);
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) <= arg + 1)
		return false;
	const struct btf_type *a = btf__type_by_id(btf, btf_params(t)[arg + 1].type);
	/* "bool" is a typedef of _Bool */
	for (int i = 0; a && (btf_is_typedef(a) || btf_is_mod(a)) && i < 8; i++)
		a = btf__type_by_id(btf, a->type);
	return a && btf_is_int(a) && (btf_int_encoding(a) & BTF_INT_BOOL);
}

/* Whether both mmap lock events say "write": the kernel's BTF read once
 * for the two (about 40 ms and 11 MiB at its peak for 5 MiB of BTF, freed
 * before the program is loaded). */
static bool lock_events_say_write(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	bool ret = tracepoint_arg_is_bool(btf, "btf_trace_mmap_lock_released", 1) &&
		   tracepoint_arg_is_bool(btf, "btf_trace_mmap_lock_acquire_returned", 1);
	btf__free(btf);
	return ret;
}

struct change_watch *change_watch_free(struct change_watch *w)
{
	if (!w)
		return NULL;
	if (w->flags)
		munmap(w->flags, w->flags_size);
	change_watch_bpf__destroy(w->bpf);
	free(w->free_index);
	free(w);
	return NULL;
}

/* Opens, sizes, loads and attaches the program into w. */
static int load(struct change_watch *w, bool writes_only)
{
	int r;

	w->bpf = change_watch_bpf__open();
	if (!w->bpf)
		return errno > 0 ? -errno : -EINVAL;
	w->bpf->rodata->writes_only = writes_only;
	if ((r = bpf_map__set_max_entries(w->bpf->maps.watched, w->capacity)) < 0 ||
	    (r = bpf_map__set_max_entries(w->bpf->maps.flags, w->capacity + 1)) < 0 ||
	    (r = bpf_map__set_max_entries(w->bpf->maps.lock_seq, w->capacity + 1)) < 0 ||
	    (r = change_watch_bpf__load(w->bpf)) < 0 || (r = change_watch_bpf__attach(w->bpf)) < 0)
		return r;
	return 0;
}

int change_watch_new(uint32_t capacity, struct change_watch **ret)
{
	struct change_watch *w;
	int r;

	if (capacity == 0 || capacity > RW_TARGETS_MAX)
		return -EINVAL;
	if (!bpf_setup_in_first_pid_namespace())
		return -EXDEV;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->capacity = capacity;
	w->free_index = reallocarray(NULL, capacity, sizeof(*w->free_index));
	if (!w->free_index) {
		change_watch_free(w);
		return -ENOMEM;
	}
	/* lowest index on top: the flags in use stay together */
	for (uint32_t i = 0; i < capacity; i++)
		w->free_index[i] = capacity - i;
	w->n_free = capacity;

	bpf_setup_quiet_libbpf();
	/* where the lock's events do not say "write", every release raises
	 * every bit: the statm flags hold, the mappings bit says little */
	bool writes_only = lock_events_say_write();
	r = load(w, writes_only);
	w->sees_mappings = writes_only;
	if (r < 0) {
		change_watch_free(w);
		return r;
	}
	w->watched_fd = bpf_map__fd(w->bpf->maps.watched);
	/* an array's elements are 8 bytes apart in its mapping */
	long page = sysconf(_SC_PAGESIZE);
	w->flags_size = ((size_t)(capacity + 1) * sizeof(uint64_t) + (size_t)page - 1) / (size_t)page * (size_t)page;
	void *m = mmap(NULL, w->flags_size, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(w->bpf->maps.flags), 0);
	if (m == MAP_FAILED) {
		r = -errno;
		change_watch_free(w);
		return r;
	}
	w->flags = m;
	*ret = w;
	return 0;
}

uint32_t change_watch_add(struct change_watch *w, int pid)
{
	uint32_t key = (uint32_t)pid, index;

	if (w->n_free == 0 || pid <= 0)
		return 0;
	index = w->free_index[--w->n_free];
	/* up before the kernel can see it: its first round reads statm and
	 * status, its first census reads its memory */
	__atomic_store_n(&w->flags[index], CHANGE_MOVED | CHANGE_SWAP | CHANGE_MAPPINGS | CHANGE_CENSUS,
			 __ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(w->watched_fd, &key, &index, BPF_ANY) < 0) {
		log_debug_errno(-errno, "cannot watch process %d for changes: %m", pid);
		w->free_index[w->n_free++] = index;
		return 0;
	}
	return index;
}

void change_watch_remove(struct change_watch *w, int pid, uint32_t index)
{
	uint32_t key = (uint32_t)pid, named;

	if (index == 0 || index > w->capacity)
		return;
	/* only while the pid still names this index: a new instance of the
	 * pid, added before this one is let go, keeps its own */
	if (bpf_map_lookup_elem(w->watched_fd, &key, &named) == 0 && named == index)
		(void)bpf_map_delete_elem(w->watched_fd, &key);
	/* the program may still raise it once: the next holder reads once more */
	w->free_index[w->n_free++] = index;
}

unsigned change_watch_take(struct change_watch *w, uint32_t index, unsigned bits)
{
	if (index == 0 || index > w->capacity)
		return bits;
	/* a full barrier: the read of statm or maps that follows cannot come
	 * first; bits the caller did not ask for stay for their own reader */
	return (unsigned)__atomic_fetch_and(&w->flags[index], ~(uint64_t)bits, __ATOMIC_SEQ_CST) & bits;
}

bool change_watch_sees_mappings(const struct change_watch *w)
{
	return w->sees_mappings;
}

void change_watch_raise(struct change_watch *w, uint32_t index, unsigned bits)
{
	if (index > 0 && index <= w->capacity)
		__atomic_fetch_or(&w->flags[index], bits, __ATOMIC_SEQ_CST);
}

uint32_t change_watch_count(const struct change_watch *w)
{
	return w->capacity - w->n_free;
}

uint32_t change_watch_room(const struct change_watch *w)
{
	return w->n_free;
}
