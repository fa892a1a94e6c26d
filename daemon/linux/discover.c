/* Discovery on Linux (discover.h): the proc root listed or the events of
 * the process watch or the connector followed, the selectors asked, what
 * they passed over remembered. */
#include "discover.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon-clock.h"
#include "fileio.h"
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

static int facts_read(int proc_dir_fd, unsigned needs, struct facts *x)
{
	int r;

	if (needs & SELECTOR_NEEDS_EXE) {
		r = procfs_read_exe(proc_dir_fd, &x->exe);
		if (r == -ENOMEM || r == -ESRCH)
			return r;
		x->f.exe = x->exe;
	}
	if (needs & SELECTOR_NEEDS_CMDLINE) {
		r = procfs_read_cmdline(proc_dir_fd, &x->cmdline);
		if (r == -ENOMEM || r == -ESRCH || r == -ENOENT)
			return r == -ENOENT ? -ESRCH : r;
		x->f.cmdline = x->cmdline;
	}
	if (needs & SELECTOR_NEEDS_CGROUP) {
		r = procfs_read_cgroup(proc_dir_fd, &x->cgroup);
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

bool discover_still_selected(const struct daemon_config *c, const struct target *t)
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
		if (procfs_read_cgroup(t->proc_dir_fd, &x.cgroup) == 0)
			x.f.cgroup = x.cgroup;
	}
	yes = selected(c, &x.f);
	facts_done(&x);
	return yes;
}

/* One pass: the discovery, the set it adds to, what it may spend. */
struct pass {
	struct discover *d;
	const struct watched *w;
	bool listing;     /* this pass lists the proc root */
	long page_size;
	long fd_room;     /* statm of processes below MinPrivate kept open below it */
};

/* What a pass decided of a process. */
enum verdict {
	GONE,     /* it exited meanwhile: forget it */
	PASSED,   /* not picked (or a kernel thread, a zombie) */
	SMALL,    /* picked, below MinPrivate */
	WAITING,  /* picked, no room */
	FOLLOWED, /* handed to the caller */
};

/* Remembers a process below MinPrivate with its statm kept open, read
 * after its status said small: private (anonymous resident, from statm
 * now, plus the status's swap) still small keeps the figures to compare
 * with; grown meanwhile, it is read again at the next pass. */
static void keep_small(struct pass *pass, int pid, int proc_dir_fd, const struct proc_status *st)
{
	struct discover *d = pass->d;
	struct known_slot *s = known_set(&d->known, pid, KNOWN_SMALL);
	struct proc_statm m;
	uint64_t swap = 0;

	if (!s || s->statm_fd >= 0)
		return; /* out of memory: read again next time; or kept already */
	int fd = procfs_open_statm(proc_dir_fd);
	if (fd < 0)
		return;
	if (fd >= pass->fd_room || procfs_pread_statm(fd, &m) < 0) {
		close(fd);
		return;
	}
	if (status_has(st, STATUS_VM_SWAP))
		swap = st->counter[STATUS_VM_SWAP];
	if ((m.resident - m.shared) * (uint64_t)pass->page_size + swap >= d->config->min_private) {
		close(fd);
		(void)known_set(&d->known, pid, KNOWN_DIRTY);
		return;
	}
	known_keep_statm(&d->known, s, fd, &m);
}

/* The descriptor number below which a newly followed process may keep a
 * pidfd: the directory and statm of every process the watched set may yet
 * take (MaxProcesses) come first, since without statm each sample reads
 * status (ten times the cost) while without a pidfd an exit is seen at
 * the next sample.  0: any. */
static long pidfd_below(const struct discover *d, const struct watched *w)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	long below = (long)rl.rlim_cur - (long)RW_FD_RESERVE;
	size_t n = watched_count(w);
	if (n < d->config->max_processes)
		below -= 2L * (long)(d->config->max_processes - n);
	return below > 0 ? below : 1; /* 1: none (descriptor 0 is taken) */
}

/* Reads pid's status and asks the selectors; follows it when they pick it,
 * it is large enough and there is room.  Returns the verdict, or -ENOMEM. */
static int decide(struct pass *pass, int pid, int *ret_proc_dir_fd, struct proc_status *st)
{
	struct discover *d = pass->d;
	const struct daemon_config *c = d->config;
	struct facts x = { 0 };
	struct target *t = NULL;
	uint64_t private = 0;
	int r;

	*ret_proc_dir_fd = procfs_open_pid(d->root_fd, pid);
	if (*ret_proc_dir_fd < 0)
		return GONE;
	d->status_reads++;
	if (procfs_read_status(*ret_proc_dir_fd, st) < 0)
		return GONE;
	/* kernel threads have no user memory (no Vm* lines); zombies neither */
	if (st->kthread || !status_has(st, STATUS_VM_RSS) || st->state == 'Z')
		return PASSED;

	/* the selectors before the size: what they pass over need not be
	 * read again until it changes, however it grows */
	x.f = (struct selector_facts){ .pid = pid, .comm = st->name, .uid = st->uid };
	r = facts_read(*ret_proc_dir_fd, needs_of(c), &x);
	if (r == -ENOMEM) {
		facts_done(&x);
		return r;
	}
	if (r == -ESRCH) {
		facts_done(&x);
		return GONE;
	}
	bool yes = r == 0 && selected(c, &x.f);
	facts_done(&x);
	if (!yes)
		return PASSED;
	(void)status_private(st, &private);
	if (private < c->min_private)
		return SMALL;

	if (!watched_has_room(pass->w, c->max_processes)) {
		d->over_limit++;
		if (!d->over_limit_logged)
			log_warning("already watching MaxProcesses=%u processes: process %d (%s) and any others "
				    "are not followed until some exit",
				    c->max_processes, pid, st->name);
		d->over_limit_logged = true;
		return WAITING;
	}

	struct target_identity id = d->id;
	id.now_ms = daemon_clock_now_ms();
	id.pidfd_below = pidfd_below(d, pass->w);
	r = target_new(d->root_fd, pid, st, &id, &t);
	if (r == -ESRCH || r == -ENOENT)
		return GONE;
	if (r < 0) {
		log_pid_warning_errno(pid, r, "cannot follow process %d (%s): %m", pid, st->name);
		return r == -ENOMEM ? r : GONE;
	}
	r = d->follow(d->userdata, t);
	if (r < 0)
		return r;
	char a[FORMAT_BYTES_MAX];
	log_pid_info(pid, "watching process %d (%s): private %s", pid, st->name, format_bytes(a, private));
	return FOLLOWED;
}

/* Decides pid and remembers the verdict.  Returns 0 or -ENOMEM. */
static int consider(struct pass *pass, int pid)
{
	struct discover *d = pass->d;
	_cleanup_close_ int proc_dir_fd = -1;
	struct proc_status st;
	struct known_slot *s;

	int v = decide(pass, pid, &proc_dir_fd, &st);
	if (v < 0)
		return v;
	switch (v) {
	case PASSED:
		/* without events nothing would tell a change: read it again
		 * next time, as if never seen */
		if (discover_source(d) == DISCOVER_LISTING) {
			(void)known_remove(&d->known, pid);
			break;
		}
		if ((s = known_set(&d->known, pid, KNOWN_PASSED)))
			known_seen(s, d->listing);
		break;
	case SMALL:
		keep_small(pass, pid, proc_dir_fd, &st);
		if ((s = known_get(&d->known, pid)))
			known_seen(s, d->listing);
		break;
	case WAITING:
		if ((s = known_set(&d->known, pid, KNOWN_WAITING)))
			known_seen(s, d->listing);
		break;
	default: /* GONE, FOLLOWED */
		(void)known_remove(&d->known, pid);
		break;
	}
	return 0;
}

/* A process known to be below MinPrivate: its statm unchanged, or grown
 * but with a VmSize still below MinPrivate, it cannot qualify yet.
 * Returns 0 or -ENOMEM. */
static int look_at_small(struct pass *pass, struct known_slot *s)
{
	struct discover *d = pass->d;
	struct proc_statm m;
	int pid = (int)s->pid;

	if (s->statm_fd < 0)
		return consider(pass, pid);
	int r = procfs_pread_statm(s->statm_fd, &m);
	if (r == -ESRCH) {
		/* that instance exited; listed, the pid is another one's */
		(void)known_remove(&d->known, pid);
		return pass->listing ? consider(pass, pid) : 0;
	}
	if (r < 0 || !known_statm_same(s, &m)) {
		if (r == 0 && m.size * (uint64_t)pass->page_size < d->config->min_private) {
			known_keep_statm(&d->known, s, s->statm_fd, &m);
			return 0;
		}
		(void)known_set(&d->known, pid, KNOWN_DIRTY); /* closes statm */
		return consider(pass, pid);
	}
	return 0;
}

static int on_listed(int pid, void *userdata)
{
	struct pass *pass = userdata;
	struct discover *d = pass->d;

	if (watched_find(pass->w, pid) || pid == d->self) {
		(void)known_remove(&d->known, pid);
		return 0;
	}
	struct known_slot *s = known_get(&d->known, pid);
	if (!s)
		return consider(pass, pid);
	known_seen(s, d->listing);
	if (s->kind == KNOWN_SMALL)
		return look_at_small(pass, s);
	return consider(pass, pid);
}

/* A pass on what the connector told, and the processes below MinPrivate
 * and those waiting for room. */
static int pass_events(struct pass *pass)
{
	struct discover *d = pass->d;
	unsigned kinds = 1u << KNOWN_DIRTY | 1u << KNOWN_SMALL;
	_cleanup_free_ int *pids = NULL;
	size_t n = 0;
	int r;

	if (watched_has_room(pass->w, d->config->max_processes))
		kinds |= 1u << KNOWN_WAITING;
	if ((r = known_pids(&d->known, kinds, &pids, &n)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct known_slot *s = known_get(&d->known, pids[i]);
		if (!s)
			continue;
		if (watched_find(pass->w, pids[i]) || pids[i] == d->self) {
			(void)known_remove(&d->known, pids[i]);
			continue;
		}
		r = s->kind == KNOWN_SMALL ? look_at_small(pass, s) : consider(pass, pids[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Descriptors a pass may leave open for processes below MinPrivate: what
 * the watched set could still need for every process it may yet take (up
 * to three each: the directory, the pidfd, statm) and RW_FD_RESERVE stay
 * free. */
static long fd_room(const struct discover *d, const struct watched *w)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return INT32_MAX;
	long room = (long)rl.rlim_cur - (long)RW_FD_RESERVE;
	size_t n = watched_count(w);
	if (n < d->config->max_processes)
		room -= 3L * (long)(d->config->max_processes - n);
	return room;
}

int discover_pass(struct discover *d, const struct watched *w)
{
	uint64_t now = now_monotonic_us();
	struct pass pass = {
		.d = d,
		.w = w,
		.page_size = sysconf(_SC_PAGESIZE),
		.fd_room = fd_room(d, w),
	};
	int r;

	pass.listing = discover_source(d) == DISCOVER_LISTING || d->full_due || now - d->last_full_us >= RW_DISCOVER_FULL_MS * 1000ull;
	d->passes++;
	if (pass.listing) {
		d->full_due = false;
		d->last_full_us = now;
		d->full_passes++;
		d->listing++;
		r = procfs_for_each_pid(d->root_fd, on_listed, &pass);
		if (r >= 0)
			(void)known_sweep(&d->known, d->listing);
	} else
		r = pass_events(&pass);
	if (r < 0) {
		d->full_due = true;
		return log_warning_errno(r, "discovery failed: %m");
	}
	if (watched_has_room(w, d->config->max_processes))
		d->over_limit_logged = false;
	return 0;
}

int discover_event(void *userdata, enum proc_connector_kind kind, int pid)
{
	struct discover *d = userdata;

	if (kind == PROC_CONNECTOR_GONE) {
		(void)known_remove(&d->known, pid);
		return 0;
	}
	if (d->full_due)
		return 0; /* the next pass sees every process anyway */
	if (d->known.dirty >= RW_DISCOVER_DIRTY_MAX || !known_set(&d->known, pid, KNOWN_DIRTY)) {
		d->full_due = true;
		log_debug("discovery: %zu processes told new or changed: the next pass lists them all",
			  d->known.dirty);
	}
	return 0;
}

/* The watch's kinds are the connector's, a uid change aside. */
static int on_watch_event(void *userdata, enum process_watch_kind kind, int pid)
{
	return discover_event(userdata,
			      kind == PROCESS_WATCH_GONE ? PROC_CONNECTOR_GONE
			      : kind == PROCESS_WATCH_NEW ? PROC_CONNECTOR_NEW
							  : PROC_CONNECTOR_CHANGED,
			      pid);
}

static void events_close(struct discover *d)
{
	d->watch = process_watch_free(d->watch);
	if (d->events_fd >= 0)
		close(d->events_fd);
	d->events_fd = -1;
}

int discover_events_read(struct discover *d)
{
	int r;

	if (d->watch)
		r = process_watch_read(d->watch);
	else if (d->events_fd >= 0)
		r = proc_connector_read(d->events_fd, discover_event, d);
	else
		return 0;
	if (r == -ENOBUFS) {
		d->events_lost++;
		d->full_due = true;
		log_debug("discovery: the %s dropped events: the next pass lists every process",
			  d->watch ? "process watch" : "proc connector");
		return 0;
	}
	if (r < 0) {
		log_warning_errno(r, "cannot read the %s, listing every process from now on: %m",
				  d->watch ? "process watch" : "proc connector");
		snprintf(d->why, sizeof(d->why), "the %s could not be read: %s",
			 d->watch ? "process watch" : "proc connector", strerror(-r));
		events_close(d);
		d->full_due = true;
		return r;
	}
	return 0;
}

int discover_events_fd(const struct discover *d)
{
	return d->watch ? process_watch_fd(d->watch) : d->events_fd;
}

enum discover_source discover_source(const struct discover *d)
{
	return d->watch ? DISCOVER_BPF : d->events_fd >= 0 ? DISCOVER_CONNECTOR : DISCOVER_LISTING;
}

bool discover_events_source(const struct discover *d, event_fd_t *ret)
{
	int fd = discover_events_fd(d);

	if (fd < 0)
		return false;
	*ret = fd;
	return true;
}

void discover_get_status(const struct discover *d, struct discover_status *ret)
{
	*ret = (struct discover_status){
		.source = discover_source(d),
		.why = d->why[0] ? d->why : NULL,
		.passes = d->passes,
		.full_passes = d->full_passes,
		.events_lost = d->events_lost,
	};
}

void discover_reload(struct discover *d)
{
	d->full_due = true;
	/* what was passed over or too small was judged by the old settings */
	known_done(&d->known);
	known_init(&d->known);
}

/* Appends "what: why" to d->why, "; " between. */
static void why_add(struct discover *d, const char *what, const char *why)
{
	size_t len = strlen(d->why);
	snprintf(d->why + len, sizeof(d->why) - len, "%s%s: %s", len ? "; " : "", what, why);
}

/* Why the process watch would not load, in words. */
static const char *watch_failure(int r)
{
	switch (r) {
	case -EPERM:
	case -EACCES:
		return "not allowed to load BPF (CAP_BPF, CAP_PERFMON)";
	case -EXDEV:
		return "the daemon is not in the host's pid namespace";
	case -ENOENT:
	case -EINVAL:
	case -EOPNOTSUPP:
		return "the kernel lacks BTF or the tracepoints";
	default:
		return strerror(-r);
	}
}

/* Why the connector cannot be listened to, in words. */
static const char *connector_failure(int r)
{
	switch (r) {
	case -EPERM:
	case -EACCES:
		return "not allowed to listen (CAP_NET_ADMIN)";
	case -EPROTONOSUPPORT:
		return "not in the host's network namespace, or a kernel without it";
	case -EAFNOSUPPORT:
		return "no netlink sockets allowed";
	default:
		return strerror(-r);
	}
}

enum discover_source discover_events_open(struct discover *d)
{
	const char *off = d->events ? NULL : "the proc root is not the host's";

	events_close(d);
	d->why[0] = 0;
	d->full_due = true;
	if (off || !d->config->process_watch)
		why_add(d, "bpf", off ? off : "ProcessWatch=no");
	else {
		int r = process_watch_new(RW_PROCESS_WATCH_RING, on_watch_event, d, &d->watch);
		if (r >= 0) {
			log_info("discovery learns of new and changed processes from the process watch (BPF)");
			return DISCOVER_BPF;
		}
		d->watch = NULL;
		why_add(d, "bpf", watch_failure(r));
	}
	if (off)
		why_add(d, "connector", off);
	else {
		int fd = proc_connector_open();
		if (fd >= 0) {
			d->events_fd = fd;
			log_info("discovery learns of new and changed processes from the proc connector (%s)", d->why);
			return DISCOVER_CONNECTOR;
		}
		why_add(d, "connector", connector_failure(fd));
	}
	log_info("every DiscoverInterval lists every process: no events of processes (%s)", d->why);
	return DISCOVER_LISTING;
}

int discover_init(struct discover *d, bool events)
{
	known_init(&d->known);
	d->full_due = true;
	d->events = events;
	d->events_fd = -1;
	d->watch = NULL;
	(void)discover_events_open(d);
	return 0;
}

void discover_done(struct discover *d)
{
	if (!d)
		return;
	if (d->events_fd >= 0 || d->watch)
		events_close(d);
	known_done(&d->known);
	free(d->boot_id);
	d->boot_id = NULL;
}

/* The boot time in unix ms: "btime" of /proc/stat (seconds). */
static int read_boot_ms(int root_fd, int64_t *ret)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = read_full_fileat(root_fd, "stat", RW_PROC_FILE_MAX, &text, &len);
	if (r < 0)
		return r;
	const char *p = strstr(text, "\nbtime ");
	uint64_t s;
	if (!p)
		return -EBADMSG;
	p += strlen("\nbtime ");
	const char *e = strchr(p, '\n');
	if (!e || parse_u64_n(p, (size_t)(e - p), 10, &s) < 0)
		return -EBADMSG;
	*ret = (int64_t)s * 1000;
	return 0;
}

int discover_open(struct discover *d, const char *proc_root, bool *ret_host)
{
	int r;

	d->root_fd = procfs_open_root(proc_root);
	if (d->root_fd < 0)
		return log_error_errno(d->root_fd, "cannot open %s: %m", proc_root ? proc_root : "/proc");
	r = procfs_read_boot_id(d->root_fd, &d->boot_id);
	if (r < 0)
		return log_error_errno(r, "cannot read the boot id: %m");
	d->id = (struct target_identity){ .boot_id = d->boot_id, .ticks_per_second = sysconf(_SC_CLK_TCK) };
	d->self = getpid();
	if (read_boot_ms(d->root_fd, &d->id.boot_ms) < 0)
		d->id.boot_ms = -1;
	/* the connector tells of the host's processes: of no use with another
	 * proc root (a test's fixture) */
	*ret_host = !proc_root || strcmp(proc_root, "/proc") == 0;
	return 0;
}
