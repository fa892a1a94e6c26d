/* Discovery (discover.h): the proc root listed, the selectors asked. */
#include "discover.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon-clock.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "procfs.h"
#include "util.h"
#include "watched.h"

/* The facts the selectors need, read only when they need them. */
struct facts {
	struct selector_facts f;
	char *exe, *cmdline, *cgroup;
};

static void facts_done(struct facts *x)
{
	free(x->exe);
	free(x->cmdline);
	free(x->cgroup);
}

static int facts_read(int pid_fd, unsigned needs, struct facts *x)
{
	int r;

	if (needs & SELECTOR_NEEDS_EXE) {
		r = procfs_read_exe(pid_fd, &x->exe);
		if (r == -ENOMEM || r == -ESRCH)
			return r;
		x->f.exe = x->exe;
	}
	if (needs & SELECTOR_NEEDS_CMDLINE) {
		r = procfs_read_cmdline(pid_fd, &x->cmdline);
		if (r == -ENOMEM || r == -ESRCH || r == -ENOENT)
			return r == -ENOENT ? -ESRCH : r;
		x->f.cmdline = x->cmdline;
	}
	if (needs & SELECTOR_NEEDS_CGROUP) {
		r = procfs_read_cgroup(pid_fd, &x->cgroup);
		if (r == -ENOMEM || r == -ESRCH || r == -ENOENT)
			return r == -ENOENT ? -ESRCH : r;
		x->f.cgroup = x->cgroup;
	}
	return 0;
}

static unsigned needs_of(const struct daemon_config *c)
{
	return selector_list_needs(&c->watch) | selector_list_needs(&c->ignore);
}

/* Watch= empty means every process (after Ignore=). */
static bool selected(const struct daemon_config *c, const struct selector_facts *f)
{
	if (c->watch.n > 0 && !selector_list_match(&c->watch, f))
		return false;
	return !selector_list_match(&c->ignore, f);
}

bool discover_still_selected(const struct daemon_config *c, struct target *t)
{
	struct facts x = {
		.f = {
			.pid = t->pid,
			.comm = t->ref->info.comm,
			.exe = t->ref->info.exe,
			.cmdline = t->ref->info.cmdline,
			.uid = t->ref->info.uid,
		},
	};
	bool yes;

	if (needs_of(c) & SELECTOR_NEEDS_CGROUP) {
		if (procfs_read_cgroup(t->pid_fd, &x.cgroup) == 0)
			x.f.cgroup = x.cgroup;
	}
	yes = selected(c, &x.f);
	facts_done(&x);
	return yes;
}

/* One pass: the discovery and the set it adds to. */
struct pass {
	struct discover *d;
	const struct watched *w;
};

static int consider(int pid, void *userdata)
{
	struct pass *pass = userdata;
	struct discover *d = pass->d;
	const struct daemon_config *c = d->config;
	_cleanup_close_ int pid_fd = -1;
	struct proc_status st;
	struct facts x = { 0 };
	struct target *t = NULL;
	uint64_t private = 0;
	int r;

	if (watched_find(pass->w, pid) || pid == d->self)
		return 0;
	pid_fd = procfs_open_pid(d->root_fd, pid);
	if (pid_fd < 0)
		return 0; /* gone already */
	if (procfs_read_status(pid_fd, &st) < 0)
		return 0;
	/* kernel threads have no user memory (no Vm* lines); zombies neither */
	if (st.kthread || !status_has(&st, STATUS_VM_RSS) || st.state == 'Z')
		return 0;
	(void)status_private(&st, &private);
	if (private < c->min_private)
		return 0;

	x.f = (struct selector_facts){ .pid = pid, .comm = st.name, .uid = st.uid };
	r = facts_read(pid_fd, needs_of(c), &x);
	if (r == -ENOMEM) {
		facts_done(&x);
		return r;
	}
	bool yes = r == 0 && selected(c, &x.f);
	facts_done(&x);
	if (!yes)
		return 0;

	if (!watched_has_room(pass->w, c->max_processes)) {
		d->over_limit++;
		if (!d->over_limit_logged)
			log_warning("already watching MaxProcesses=%u processes: process %d (%s) and any others "
				    "are not followed until some exit",
				    c->max_processes, pid, st.name);
		d->over_limit_logged = true;
		return 0;
	}

	d->id.now_ms = daemon_clock_now_ms();
	r = target_new(d->root_fd, pid, &st, &d->id, &t);
	if (r == -ESRCH || r == -ENOENT)
		return 0;
	if (r < 0) {
		log_pid_warning_errno(pid, r, "cannot follow process %d (%s): %m", pid, st.name);
		return r == -ENOMEM ? r : 0;
	}
	r = d->follow(d->userdata, t);
	if (r < 0)
		return r;
	char a[FORMAT_BYTES_MAX];
	log_pid_info(pid, "watching process %d (%s): private %s", pid, st.name, format_bytes(a, private));
	return 0;
}

int discover_pass(struct discover *d, const struct watched *w)
{
	struct pass pass = { d, w };
	int r = procfs_for_each_pid(d->root_fd, consider, &pass);
	if (r < 0)
		return log_warning_errno(r, "discovery failed: %m");
	if (watched_has_room(w, d->config->max_processes))
		d->over_limit_logged = false;
	return 0;
}
