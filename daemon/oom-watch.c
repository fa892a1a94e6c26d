/* The OOM watch (oom-watch.h): loading its program and reading its ring
 * buffer. */
#include "oom-watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf-setup.h"
#include "oom-watch.skel.h"

struct oom_watch {
	struct oom_watch_bpf *bpf;
	struct ring_buffer *ring;
	oom_watch_event_t fn;
	void *userdata;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct oom_watch *w = ctx;
	struct oom_watch_event e;

	/* the program writes whole records; anything else is not ours */
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.kind != OOM_WATCH_VICTIM)
		return 0;
	e.comm[sizeof(e.comm) - 1] = 0;
	return w->fn(w->userdata, &e);
}

struct oom_watch *oom_watch_free(struct oom_watch *w)
{
	if (!w)
		return NULL;
	ring_buffer__free(w->ring);
	oom_watch_bpf__destroy(w->bpf);
	free(w);
	return NULL;
}

int oom_watch_new(oom_watch_event_t fn, void *userdata, struct oom_watch **ret)
{
	struct oom_watch *w;
	int r;

	if (!bpf_setup_in_first_pid_namespace())
		return -EXDEV;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->userdata = userdata;
	bpf_setup_quiet_libbpf();
	w->bpf = oom_watch_bpf__open();
	if (!w->bpf) {
		r = errno > 0 ? -errno : -EINVAL;
		oom_watch_free(w);
		return r;
	}
	if ((r = oom_watch_bpf__load(w->bpf)) < 0 || (r = oom_watch_bpf__attach(w->bpf)) < 0) {
		oom_watch_free(w);
		return r;
	}
	w->ring = ring_buffer__new(bpf_map__fd(w->bpf->maps.events), on_record, w, NULL);
	if (!w->ring) {
		r = errno > 0 ? -errno : -ENOMEM;
		oom_watch_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int oom_watch_fd(const struct oom_watch *w)
{
	return ring_buffer__epoll_fd(w->ring);
}

int oom_watch_read(struct oom_watch *w)
{
	return ring_buffer__consume(w->ring);
}
