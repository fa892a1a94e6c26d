/* The manager's set-up, its timers and signals, reloads and shutdown.
 *
 * Everything runs on one thread: sd_event dispatches one callback at a
 * time, so a signal is handled between two of them, never in the middle
 * of a write (a signal handler of our own would only have set a flag). */
#include "manager.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "fileio.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "procfs.h"
#include "util.h"

/* Retention runs this often; each run is a bounded number of steps. */
#define RETENTION_PERIOD_US (60u * 1000u * 1000u)

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

/* Timer accuracy: sd_event may fire a timer this much late to coalesce
 * wake-ups; a tenth of the interval, at most 50 ms, keeps samples evenly
 * spaced without waking the machine more than needed. */
static uint64_t accuracy_of(uint64_t interval)
{
	uint64_t a = interval / 10;
	return a > 50000 ? 50000 : a ? a : 1;
}

/* Re-arms a one-shot timer interval after its last due time (so the pace
 * does not drift by the work done), or from now when it fell behind. */
static void rearm(sd_event_source *s, uint64_t interval)
{
	uint64_t due = 0, now = 0;
	(void)sd_event_source_get_time(s, &due);
	(void)sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);
	due += interval;
	if (due <= now)
		due = now + interval;
	(void)sd_event_source_set_time(s, due);
	(void)sd_event_source_set_time_accuracy(s, accuracy_of(interval));
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static void update_status(struct manager *m)
{
	char line[512];
	manager_status_line(m, line, sizeof(line));
	(void)sd_notifyf(false, "STATUS=%s", line);
}

static int on_sample(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	(void)usec;
	(void)manager_sample_all(m);
	manager_census_pass(m);
	rearm(s, m->config.sample_interval);
	return 0;
}

static int on_census_soon(sd_event_source *s, void *userdata)
{
	struct manager *m = userdata;
	(void)s;
	manager_census_pass(m);
	return 0;
}

void manager_census_soon(struct manager *m)
{
	int r;

	if (!m->census_defer) {
		r = sd_event_add_defer(m->event, &m->census_defer, on_census_soon, m);
		if (r < 0) {
			/* the next fast pass runs it anyway */
			log_debug_errno(r, "cannot schedule a census pass: %m");
			return;
		}
	}
	(void)sd_event_source_set_enabled(m->census_defer, SD_EVENT_ONESHOT);
}

static int on_store(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	(void)usec;
	(void)manager_store_cycle(m);
	/* after the store cycle: the metrics say whether it wrote */
	manager_export(m);
	update_status(m);
	if (m->retention_now) {
		m->retention_now = false;
		manager_retention(m);
	}
	rearm(s, m->config.store_interval);
	return 0;
}

static int on_discover(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	(void)usec;
	(void)manager_discover(m);
	rearm(s, m->config.discover_interval);
	return 0;
}

static int on_retention(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	(void)usec;
	manager_retention(m);
	rearm(s, RETENTION_PERIOD_US);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;
	(void)s;
	if (si->ssi_signo == SIGHUP) {
		(void)sd_notify(false, "RELOADING=1");
		(void)manager_reload(m);
		(void)sd_notify(false, "READY=1");
		update_status(m);
		return 0;
	}
	log_info("%s received: writing what was gathered and stopping", strsignal((int)si->ssi_signo));
	(void)sd_notify(false, "STOPPING=1");
	return sd_event_exit(m->event, 0);
}

static int add_timer(struct manager *m, sd_event_source **ret, uint64_t first, uint64_t interval,
		     sd_event_time_handler_t cb, const char *name)
{
	uint64_t now;
	int r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;
	r = sd_event_add_time(m->event, ret, CLOCK_MONOTONIC, now + first, accuracy_of(interval), cb, m);
	if (r < 0)
		return log_error_errno(r, "cannot add the %s timer: %m", name);
	(void)sd_event_source_set_description(*ret, name);
	return 0;
}

static int setup_loop(struct manager *m)
{
	sigset_t mask;
	int r;

	r = sd_event_default(&m->event);
	if (r < 0)
		return log_error_errno(r, "cannot create the event loop: %m");
	/* with WATCHDOG_USEC set by systemd, sd_event sends WATCHDOG=1 at
	 * half of it from the loop itself: a stuck loop stops pinging */
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		return log_error_errno(r, "cannot set up the watchdog: %m");

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "cannot block signals: %m");
	if ((r = sd_event_add_signal(m->event, &m->sigterm, SIGTERM, on_signal, m)) < 0 ||
	    (r = sd_event_add_signal(m->event, &m->sigint, SIGINT, on_signal, m)) < 0 ||
	    (r = sd_event_add_signal(m->event, &m->sighup, SIGHUP, on_signal, m)) < 0)
		return log_error_errno(r, "cannot watch signals: %m");

	/* discovery first, then sampling; the first store cycle after one
	 * StoreInterval; retention soon after start, then every minute */
	if ((r = add_timer(m, &m->discover_timer, 0, m->config.discover_interval, on_discover, "discovery")) < 0 ||
	    (r = add_timer(m, &m->sample_timer, 1000, m->config.sample_interval, on_sample, "sampling")) < 0 ||
	    (r = add_timer(m, &m->store_timer, m->config.store_interval, m->config.store_interval, on_store,
			   "store")) < 0 ||
	    (r = add_timer(m, &m->retention_timer, 5u * 1000u * 1000u, RETENTION_PERIOD_US, on_retention,
			   "retention")) < 0)
		return r;
	return 0;
}

/* The lock file in the state directory: one writing daemon per database. */
#define STATE_LOCK_FILE "ramwatchd.lock"

/* The pid a holder wrote into the lock file, or 0 when there is none yet
 * (it writes it just after taking the lock) or it is not a pid. */
static int read_lock_holder(int fd)
{
	char buf[16];
	int pid;

	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_pid(buf, &pid) == 0 ? pid : 0;
}

/* Takes the state directory's lock, so that a second daemon started on the
 * same directory does not write into the same database.  flock(2): the lock
 * belongs to the open file description, so the kernel drops it when the
 * last descriptor to it closes, on any exit, kill -9 included; a crash
 * never leaves a stale lock behind, and the pid left in the file is only
 * read to name a holder that still has it.  Taken after the detaching fork,
 * so the process that holds it is the one that keeps running.  Returns 0
 * with m->lock_fd, -EBUSY when another process holds it, or -errno, after
 * logging why. */
static int lock_state_dir(struct manager *m)
{
	_cleanup_free_ char *path = NULL;
	char pid[16];

	if (asprintf(&path, "%s/" STATE_LOCK_FILE, m->state_dir) < 0)
		return log_error_errno(ENOMEM, "out of memory");
	/* O_NOFOLLOW: the file is truncated below, never through a link */
	_cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd < 0)
		return log_error_errno(errno, "cannot open the lock file %s: %m", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			return log_error_errno(errno, "cannot lock %s: %m", path);
		int holder = read_lock_holder(fd);
		if (holder > 0)
			log_error("another ramwatchd (pid %d) is using the state directory %s (lock %s)", holder,
				  m->state_dir, path);
		else
			log_error("another ramwatchd is using the state directory %s (lock %s; its pid is not "
				  "written yet)", m->state_dir, path);
		return -EBUSY;
	}
	/* the pid is for the message above: a daemon that cannot write it
	 * still holds the lock, and the next one is refused all the same */
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	ssize_t w = ftruncate(fd, 0) < 0 ? -1 : pwrite(fd, pid, (size_t)n, 0);
	if (w != n)
		log_warning_errno(w < 0 ? errno : EIO, "cannot write the pid into %s, ignored: %m", path);
	m->lock_fd = TAKE_FD(fd);
	return 0;
}

static int open_store(struct manager *m)
{
	char err[512] = "";
	struct store_options so = {
		.path = m->db_path,
		.max_size = m->config.max_database_size,
		/* WAL readers never block the writer; only another writer does.
		 * Waiting long for it would stall sampling (one thread), so the
		 * wait is short and the writer's queue does the rest. */
		.busy_timeout_ms = 100,
	};
	int r;

	if (mkdir(m->state_dir, 0750) < 0 && errno != EEXIST)
		return log_error_errno(errno, "cannot create the state directory %s: %m", m->state_dir);
	if ((r = lock_state_dir(m)) < 0)
		return r;
	r = store_open(&so, &m->store, err, sizeof(err));
	if (r < 0)
		return log_error_errno(r, "cannot open the store %s: %s", m->db_path, err[0] ? err : strerror(-r));
	m->writer = writer_new(m->store);
	if (!m->writer)
		return log_error_errno(ENOMEM, "out of memory");
	log_info("store %s open (schema version %d)", m->db_path, store_schema_version(m->store));
	return 0;
}

int manager_new(const struct manager_options *o, struct manager **ret)
{
	struct manager *m = calloc(1, sizeof(*m));
	char err[512] = "";
	int r;

	if (!m)
		return log_error_errno(ENOMEM, "out of memory");
	m->root_fd = -1;
	m->lock_fd = -1;
	config_defaults(&m->config);
	m->config_path = strdup(o->config_path);
	m->state_dir = strdup(o->state_dir);
	if (!m->config_path || !m->state_dir || asprintf(&m->db_path, "%s/ramwatch.db", o->state_dir) < 0) {
		m->db_path = NULL;
		manager_free(m);
		return log_error_errno(ENOMEM, "out of memory");
	}

	struct daemon_config c;
	r = config_load(m->config_path, &c, err, sizeof(err));
	if (r < 0) {
		log_error_errno(r, "bad configuration: %s", err);
		manager_free(m);
		return r;
	}
	config_done(&m->config);
	m->config = c;

	m->root_fd = procfs_open_root(o->proc_root);
	if (m->root_fd < 0) {
		r = log_error_errno(m->root_fd, "cannot open %s: %m", o->proc_root ? o->proc_root : "/proc");
		manager_free(m);
		return r;
	}
	r = procfs_read_boot_id(m->root_fd, &m->boot_id);
	if (r < 0) {
		r = log_error_errno(r, "cannot read the boot id: %m");
		manager_free(m);
		return r;
	}
	if (read_boot_ms(m->root_fd, &m->boot_ms) < 0)
		m->boot_ms = -1;
	m->ticks_per_second = sysconf(_SC_CLK_TCK);

	if ((r = open_store(m)) < 0 || (r = setup_loop(m)) < 0) {
		manager_free(m);
		return r;
	}
	manager_gpu_open(m);
	uint64_t now = now_monotonic_us();
	budget_init(&m->budget, m->config.scan_budget, now);
	m->started_us = now;
	m->status_at = now;
	struct control_options co = { .socket_path = o->socket_path, .proc_root = o->proc_root };
	if ((r = control_new(m, &co, &m->control)) < 0) {
		manager_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

int manager_run(struct manager *m)
{
	int r;

	(void)sd_notify(false, "READY=1\nSTATUS=store open; discovering processes");
	log_info("ramwatchd " RAMWATCH_VERSION " running: database %s, configuration %s", m->db_path,
		 m->config_path);
	r = sd_event_loop(m->event);
	if (r < 0)
		log_error_errno(r, "event loop failed: %m");

	/* what was gathered since the last cycle is written before exit */
	(void)manager_store_cycle(m);
	struct writer_stats ws;
	writer_get_stats(m->writer, &ws);
	if (ws.queued > 0)
		log_warning("stopping with %" PRIu64 " rows the store would not take (%s)", ws.queued,
			    ws.message[0] ? ws.message : "see above");
	return r < 0 ? r : 0;
}

int manager_reload(struct manager *m)
{
	struct daemon_config c;
	char err[512] = "", changes[4096] = "";
	int r;

	r = config_load(m->config_path, &c, err, sizeof(err));
	if (r < 0)
		return log_error_errno(r, "reload refused, keeping the running configuration: %s", err);
	unsigned n = config_describe_changes(&m->config, &c, changes, sizeof(changes));
	if (n == 0) {
		config_done(&c);
		log_info("configuration reloaded: nothing changed");
		return 0;
	}
	/* one line per setting, so each is its own journal entry */
	log_info("configuration reloaded: %u setting%s changed", n, n == 1 ? "" : "s");
	for (char *line = strtok(changes, "\n"); line; line = strtok(NULL, "\n"))
		log_info("  %s", line);

	config_done(&m->config);
	m->config = c;
	manager_gpu_reload(m);
	budget_set_share(&m->budget, m->config.scan_budget);
	(void)store_set_max_size(m->store, m->config.max_database_size);
	rearm(m->sample_timer, 0);
	rearm(m->store_timer, m->config.store_interval);
	rearm(m->discover_timer, 0);

	/* processes the new selectors no longer pick are let go */
	for (struct target *t = m->targets, *next; t; t = next) {
		next = t->next;
		if (!manager_still_selected(m, t)) {
			log_pid_info(t->pid, "process %d (%s) no longer matches the configuration: not watched any more",
				     t->pid, t->ref->info.comm ? t->ref->info.comm : "?");
			manager_drop_target(m, t, false);
		}
	}
	return 0;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	/* first: its clients' census waiters are cancelled before the targets
	 * they wait on go */
	m->control = control_free(m->control);
	while (m->targets)
		manager_drop_target(m, m->targets, false);
	pidmap_done(&m->by_pid);
	sd_event_source_unref(m->sample_timer);
	sd_event_source_unref(m->store_timer);
	sd_event_source_unref(m->discover_timer);
	sd_event_source_unref(m->retention_timer);
	sd_event_source_unref(m->census_defer);
	sd_event_source_unref(m->sigterm);
	sd_event_source_unref(m->sigint);
	sd_event_source_unref(m->sighup);
	writer_free(m->writer);
	store_close(m->store);
	/* after the store: the next daemon finds the database closed */
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	sd_event_unref(m->event);
	if (m->root_fd >= 0)
		close(m->root_fd);
	config_done(&m->config);
	export_state_done(&m->export);
	manager_gpu_close(m);
	free(m->boot_id);
	free(m->config_path);
	free(m->state_dir);
	free(m->db_path);
	free(m);
	return NULL;
}

void manager_status_line(struct manager *m, char *buf, size_t size)
{
	uint64_t now = now_monotonic_us(), censuses = 0;
	struct writer_stats ws;

	for (int k = 0; k < _STATUS_MAX; k++)
		censuses += m->stats.censuses[k];
	double minutes = (double)(now - m->status_at) / 60e6;
	double per_minute = minutes > 0 ? (double)(censuses - m->status_censuses) / minutes : 0;
	double used = now > m->status_at ? (double)(m->stats.census_cpu_us - m->status_cpu_us) / (double)(now - m->status_at) : 0;
	writer_get_stats(m->writer, &ws);
	snprintf(buf, size,
		 "watching %u processes; %.1f censuses/min; census budget %.2f%% used of %.2f%%; %" PRIu64
		 " deferred; store %s%s%s",
		 m->n_targets, per_minute, used * 100, m->config.scan_budget * 100, m->stats.deferred,
		 ws.error ? "failing: " : "ok", ws.error ? (ws.message[0] ? ws.message : strerror(-ws.error)) : "",
		 ws.error ? "" : "");
	m->status_at = now;
	m->status_censuses = censuses;
	m->status_cpu_us = m->stats.census_cpu_us;
}
