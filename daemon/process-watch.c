/* The process watch (process-watch.h): loading its program and reading
 * its ring buffer.
 *
 * Workload: every fork, exec and exit on the host, a few hundred a second
 * on a busy build machine, eight bytes each; threads are filtered out in
 * the kernel, so a host of JVMs and thread pools sends no more. */
#include "process-watch.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf-setup.h"
#include "process-watch.skel.h"

struct process_watch {
	struct process_watch_bpf *bpf;
	struct ring_buffer *ring;
	process_watch_event_t fn;
	void *userdata;
	unsigned long long lost_seen; /* lost, as the last read found it */
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct process_watch *w = ctx;
	struct process_watch_event e;

	/* the program writes whole records; anything else is not ours */
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.kind < PROCESS_WATCH_NEW || e.kind > PROCESS_WATCH_GONE || e.pid == 0 || e.pid > INT32_MAX)
		return 0;
	return w->fn(w->userdata, (enum process_watch_kind)e.kind, (int)e.pid);
}

struct process_watch *process_watch_free(struct process_watch *w)
{
	if (!w)
		return NULL;
	ring_buffer__free(w->ring);
	process_watch_bpf__destroy(w->bpf);
	free(w);
	return NULL;
}

int process_watch_new(size_t ring_bytes, process_watch_event_t fn, void *userdata, struct process_watch **ret)
{
	long page = sysconf(_SC_PAGESIZE);
	struct process_watch *w;
	int r;

	/* the kernel wants a power of two, a multiple of the page */
	if (ring_bytes < (size_t)page || (ring_bytes & (ring_bytes - 1)) || ring_bytes > UINT32_MAX)
		return -EINVAL;
	if (!bpf_setup_in_first_pid_namespace())
		return -EXDEV;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->userdata = userdata;
	bpf_setup_quiet_libbpf();
	w->bpf = process_watch_bpf__open();
	if (!w->bpf) {
		r = errno > 0 ? -errno : -EINVAL;
		process_watch_free(w);
		return r;
	}
	if ((r = bpf_map__set_max_entries(w->bpf->maps.events, (uint32_t)ring_bytes)) < 0 ||
	    (r = process_watch_bpf__load(w->bpf)) < 0 || (r = process_watch_bpf__attach(w->bpf)) < 0) {
		process_watch_free(w);
		return r;
	}
	/* .bss is mapped into our memory only where the kernel allows it
	 * (5.5 and later, as tp_btf): without it losses could not be told */
	if (!w->bpf->bss) {
		process_watch_free(w);
		return -EOPNOTSUPP;
	}
	w->ring = ring_buffer__new(bpf_map__fd(w->bpf->maps.events), on_record, w, NULL);
	if (!w->ring) {
		r = errno > 0 ? -errno : -ENOMEM;
		process_watch_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int process_watch_fd(const struct process_watch *w)
{
	return ring_buffer__epoll_fd(w->ring);
}

unsigned long long process_watch_lost(const struct process_watch *w)
{
	return __atomic_load_n(&w->bpf->bss->lost, __ATOMIC_RELAXED);
}

int process_watch_read(struct process_watch *w)
{
	int n = ring_buffer__consume(w->ring);
	if (n < 0)
		return n;
	/* read after the ring: a loss counted once the ring was full is
	 * older than whatever this read left in it */
	unsigned long long lost = process_watch_lost(w);
	if (lost != w->lost_seen) {
		w->lost_seen = lost;
		return -ENOBUFS;
	}
	return n;
}
