/* The manager (manager.h): set-up, timers and signals, the ticks read top
 * to bottom, following and letting go of a process, reloads, shutdown.
 * The core interface the control socket sees is manager-interface.c's.
 *
 * Everything runs on one thread: the event loop (event-loop.h) dispatches
 * one callback at a time, so a request to stop or reload is handled
 * between two of them, never in the middle of a write. */
#include "manager-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "census-tier.h"
#include "config.h"
#include "control.h"
#include "daemon-clock.h"
#include "discover.h"
#include "event-loop.h"
#include "export.h"
#include "fast-tier.h"
#include "fileio.h"
#include "gpu-watch.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "service.h"
#include "state-lock.h"
#include "store-cycle.h"
#include "store.h"
#include "target.h"
#include "timer.h"
#include "util.h"
#include "status-line.h"
#include "watched.h"
#include "writer.h"

/* ------------------------------------------------------------ following */

/* A target's exit watch: the source of its exit (a pidfd) carries both
 * (its userdata, freed with it). */
struct exit_watch {
	struct manager *m;
	struct target *t;
};

static void let_go(struct manager *m, struct target *t, bool exited);

static void on_exit_told(struct event_source *s, uint32_t revents, void *userdata)
{
	struct exit_watch *w = userdata;
	(void)s;
	(void)revents;
	let_go(w->m, w->t, true);
}

/* Discovery picked t: it joins the watched set, the store gets its row,
 * its exit is watched, its first census is due. */
static int follow(void *userdata, struct target *t)
{
	struct manager *m = userdata;

	int r = watched_add(m->watched, t, m->config.max_processes);
	if (r < 0) {
		target_free(t);
		return r;
	}
	r = fast_tier_add(&m->fast, t);
	if (r < 0) {
		watched_remove(m->watched, t, false);
		target_free(t);
		return r;
	}
	event_fd_t exit_fd;
	if (target_exit_source(t, &exit_fd)) {
		struct exit_watch *w = malloc(sizeof(*w));
		if (w) {
			*w = (struct exit_watch){ m, t };
			r = event_loop_add_io(m->event, exit_fd, EVENT_IN, on_exit_told, w, "exit", &t->exit_source);
			if (r < 0)
				free(w);
		}
	}
	(void)writer_add_process(store_cycle_writer(m->store_cycle), t->ref);
	census_tier_first_sight(m->census_tier, t, now_monotonic_us());
	manager_oom_followed(m, t);
	return 0;
}

/* Stops following t: records its exit (exited) or that it is no longer
 * watched, queues what was gathered, tells the clients waiting for its
 * census, frees it. */
static void let_go(struct manager *m, struct target *t, bool exited)
{
	struct writer *writer = store_cycle_writer(m->store_cycle);
	int64_t now = daemon_clock_now_ms();

	if (exited) {
		proc_ref_exited(t->ref, now);
		char a[FORMAT_BYTES_MAX];
		log_pid_info(t->pid, "process %d (%s) exited; peak private %s", t->pid,
			     t->ref->info.comm ? t->ref->info.comm : "?", format_bytes(a, t->ref->info.peak_private));
	}
	/* what the fast tier gathered since the last row is kept */
	fast_tier_queue(&m->fast, t, writer, now);
	(void)writer_add_process(writer, t->ref);
	census_tier_forget(m->census_tier, t, exited, now);
	if (exited)
		manager_oom_exited(m, t);
	if (t->exit_source) {
		free(event_source_userdata(t->exit_source));
		t->exit_source = event_source_free(t->exit_source);
	}
	fast_tier_remove(&m->fast, t);
	watched_remove(m->watched, t, exited);
	target_free(t);
}

/* ------------------------------------------------------------ the ticks */


/* Past RW_WRITER_EARLY_BYTES queued (a burst of censuses), the queue is
 * written now: its rows are the same, written sooner, and the memory they
 * held is handed back (store_cycle_flush trims the heap). */
static void write_early(struct manager *m)
{
	struct writer_stats ws;

	writer_get_stats(store_cycle_writer(m->store_cycle), &ws);
	/* a store that failed its last write (locked, full) is retried at
	 * the store tick only, not at every census */
	if (ws.queued_bytes < RW_WRITER_EARLY_BYTES || ws.error != 0)
		return;
	(void)store_cycle_flush(m->store_cycle);
	manager_store_replaced(m);
}

/* The censuses that are due, the most urgent first, while the budget
 * allows and for at most RW_CENSUS_PASS_US (the loop has other work). */
static void census_pass(struct manager *m)
{
	uint64_t start = now_monotonic_us();
	struct target *t;

	census_tier_refill(m->census_tier, start);
	while ((t = census_tier_next(m->census_tier, m->watched))) {
		enum census_status status = census_tier_take(m->census_tier, t, fast_tier_take_mappings(&m->fast, t),
							     gpu_watch_snapshot(&m->gpu), store_cycle_writer(m->store_cycle));
		if (status == CENSUS_EXITED)
			let_go(m, t, true);
		else
			fast_tier_wake(&m->fast, t);
		write_early(m);
		census_tier_refill(m->census_tier, now_monotonic_us());
		if (now_monotonic_us() - start > RW_CENSUS_PASS_US)
			break;
	}
}

static void on_sample(struct event_source *s, void *userdata)
{
	struct manager *m = userdata;
	int64_t now_ms = daemon_clock_now_ms();
	uint64_t now = now_monotonic_us();

	/* the fast tier: each watched process's statm or status; the interval and
	 * growth triggers from it; an exit lets the process go.  From the end:
	 * a process let go leaves its slot to one already sampled. */
	bool due = false;
	(void)fast_tier_begin_round(&m->fast);
	for (size_t i = fast_tier_count(&m->fast); i-- > 0;) {
		struct target *t;
		int r = fast_tier_sample(&m->fast, i, now_ms, now, (int64_t)(m->config.store_interval / 1000), &t);
		if (r > 0)
			continue; /* nothing changed, nothing due */
		if (r == -ESRCH) {
			let_go(m, t, true);
			continue;
		}
		if (r >= 0)
			fast_tier_quiet(&m->fast, t, census_tier_sampled(m->census_tier, t, now));
		due |= census_tier_pending(&t->census);
	}
	/* the census tier: what is due now (most rounds, nothing: then the
	 * pass would only walk the list again to find that out) */
	if (due)
		census_pass(m);
	/* longer than SampleInterval, rounds would fall behind: the metric tells */
	fast_tier_round(&m->fast, now_monotonic_us() - now);
	timer_rearm(s, m->config.sample_interval);
}

static void on_census_soon(struct event_source *s, void *userdata)
{
	struct manager *m = userdata;
	(void)s;
	census_pass(m);
}

/* Runs a census pass from the loop as soon as the current callback
 * returns (a request or a mark is waiting). */
void manager_census_soon(struct manager *m)
{
	int r;

	if (!m->census_soon) {
		r = event_loop_add_defer(m->event, on_census_soon, m, "census-soon", &m->census_soon);
		if (r < 0) {
			/* the next fast pass runs it anyway */
			log_debug_errno(r, "cannot schedule a census pass: %m");
			return;
		}
	}
	event_defer_arm(m->census_soon);
}

/* After a damaged database was replaced: the control socket's reader
 * opens the new file. */
void manager_store_replaced(struct manager *m)
{
	if (store_cycle_take_replaced(m->store_cycle))
		control_store_replaced(m->control);
}

/* One store cycle: the rows of each process and of the system, the GPU
 * snapshot's, everything queued written together. */
static int run_store_cycle(struct manager *m)
{
	int64_t now = daemon_clock_now_ms();
	int r;

	store_cycle_gather(m->store_cycle, &m->fast, m->watched, now);
	/* the memory cgroups' rows, and the OOM kills the counters found */
	manager_oom_tick(m, now);
	if (gpu_watch_cycle(&m->gpu, m->watched, m->census_tier, store_cycle_writer(m->store_cycle), now))
		/* the growth trigger of GPU memory: the round must see it */
		for (struct target *t = watched_first(m->watched); t; t = watched_next(t))
			if (census_tier_pending(&t->census))
				fast_tier_wake(&m->fast, t);
	r = store_cycle_flush(m->store_cycle);
	manager_store_replaced(m);
	return r;
}

/* Export='s textfile holds every process's metrics */
static int textfile_text(void *userdata, char **ret, size_t *ret_len)
{
	return manager_metrics_text(userdata, -1, NULL, ret, ret_len);
}

static void update_status(struct manager *m)
{
	struct core_status st;
	char line[512];

	manager_snapshot(m, false, &st);
	(void)status_line_format(&st, now_monotonic_us(), &m->status_since, line, sizeof(line));
	service_status(line);
}

static void on_store(struct event_source *s, void *userdata)
{
	struct manager *m = userdata;

	if (run_store_cycle(m) == -ENOTRECOVERABLE) {
		/* a damaged database that could not be replaced (logged) */
		event_loop_exit(m->event, -ENOTRECOVERABLE);
		return;
	}
	/* after the store cycle: the metrics say whether it wrote */
	export_textfile(&m->export, m->config.export_path, textfile_text, m);
	update_status(m);
	if (store_cycle_take_retention_due(m->store_cycle)) {
		store_cycle_retention(m->store_cycle);
		manager_store_replaced(m);
	}
	timer_rearm(s, m->config.store_interval);
}

/* Forks, execs and exits told by the process watch or the proc connector:
 * they mark processes for the next discovery pass, read at most every
 * RW_PROC_EVENTS_EVERY_US and at each pass. */
static void read_proc_events(struct manager *m)
{
	if (!m->proc_events)
		return;
	if (discover_events_read(&m->discover) < 0) {
		/* closed: every pass lists the proc root from now on */
		m->proc_events = event_source_free(m->proc_events);
	}
}

static void on_proc_events(struct event_source *s, uint32_t revents, void *userdata)
{
	(void)s;
	(void)revents;
	read_proc_events(userdata);
}

static void on_discover(struct event_source *s, void *userdata)
{
	struct manager *m = userdata;
	read_proc_events(m);
	(void)discover_pass(&m->discover, m->watched);
	timer_rearm(s, m->config.discover_interval);
}

static void on_retention(struct event_source *s, void *userdata)
{
	struct manager *m = userdata;
	store_cycle_retention(m->store_cycle);
	manager_store_replaced(m);
	if (!store_cycle_store(m->store_cycle)) {
		event_loop_exit(m->event, -ENOTRECOVERABLE);
		return;
	}
	timer_rearm(s, RETENTION_PERIOD_US);
}

static int reload(struct manager *m);

/* The loop's source for discovery's events, for the source discovery has
 * open now (none: every pass looks at every process).  Returns 0 or a
 * negative errno (logged). */
static int watch_process_events(struct manager *m)
{
	const char *name = discover_source_name(discover_source(&m->discover));
	event_fd_t fd;
	int r;

	m->proc_events = event_source_free(m->proc_events);
	if (!discover_events_source(&m->discover, &fd))
		return 0;
	r = event_loop_add_io(m->event, fd, EVENT_IN, on_proc_events, m, name, &m->proc_events);
	if (r < 0)
		return log_error_errno(r, "cannot watch discovery's events (%s): %m", name);
	/* once within the interval, then again after it */
	r = event_io_pace(m->proc_events, RW_PROC_EVENTS_EVERY_US);
	if (r < 0)
		return log_error_errno(r, "cannot pace discovery's events (%s): %m", name);
	return 0;
}

/* ChangeWatch=: the kernel's change events, where they can be had; else
 * every process's statm is read every round, as the watch is only a way to
 * read less.  Its capacity is MaxProcesses when it starts. */
static void watch_changes(struct manager *m)
{
	bool was = fast_tier_watching(&m->fast);
	bool on = m->config.change_watch && m->host_proc;
	int r = fast_tier_watch(&m->fast, on, (uint32_t)m->config.max_processes);

	if (r < 0)
		log_notice_errno(r, "reading every watched process's statm every SampleInterval: "
				    "the kernel's change events (BPF on rss_stat and mmap_lock_released) cannot be used: %m");
	else if (on && !was && fast_tier_sees_mappings(&m->fast))
		log_info("reading statm only of processes the kernel's change events name (ChangeWatch=yes); "
			 "maps, before a census, only of those whose mappings they name");
	else if (on && !was)
		log_info("reading statm only of processes the kernel's change events name (ChangeWatch=yes)");
	else if (!on && was)
		log_info("reading every watched process's statm every SampleInterval (ChangeWatch=no)");
}

/* A request from outside (event-loop.h: SIGHUP, SIGTERM, SIGINT on Linux):
 * reload, or write what was gathered and stop. */
static void on_request(enum event_request what, const char *why, void *userdata)
{
	struct manager *m = userdata;
	if (what == EVENT_RELOAD) {
		service_reloading();
		(void)reload(m);
		service_ready(NULL);
		update_status(m);
		return;
	}
	log_info("%s received: writing what was gathered and stopping", why);
	service_stopping();
	event_loop_exit(m->event, 0);
}

static int setup_loop(struct manager *m)
{
	int r;

	r = event_loop_new(&m->event);
	if (r < 0)
		return log_error_errno(r, "cannot create the event loop: %m");
	/* under a service manager's watchdog, the loop itself tells it that
	 * the daemon is alive: a stuck loop stops telling */
	r = event_loop_keep_watchdog(m->event);
	if (r < 0)
		return log_error_errno(r, "cannot set up the watchdog: %m");
	if ((r = event_loop_watch_requests(m->event, on_request, m)) < 0)
		return r;

	/* discovery first, then sampling; the first store cycle after one
	 * StoreInterval; retention soon after start, then every minute */
	const struct daemon_config *c = &m->config;
	if ((r = watch_process_events(m)) < 0)
		return r;
	if ((r = timer_add(m->event, &m->discover_timer, 0, c->discover_interval, on_discover, m, "discovery")) < 0 ||
	    (r = timer_add(m->event, &m->sample_timer, 1000, c->sample_interval, on_sample, m, "sampling")) < 0 ||
	    (r = timer_add(m->event, &m->store_timer, c->store_interval, c->store_interval, on_store, m, "store")) < 0 ||
	    (r = timer_add(m->event, &m->retention_timer, 5u * 1000u * 1000u, RETENTION_PERIOD_US, on_retention, m,
			   "retention")) < 0)
		return r;
	return 0;
}

/* ------------------------------------------------------------ life */

/* Reloads the configuration (SIGHUP).  A bad file keeps the running one.
 * Returns 0 or the negative errno of the failed load. */
static int reload(struct manager *m)
{
	struct daemon_config c;
	struct error err = { 0 };
	char changes[4096] = "";
	int r;

	r = config_load(m->config_path, &c, &err);
	if (r < 0)
		return log_error_errno(r, "reload refused, keeping the running configuration: %s", err.message);
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

	/* in place: the parts of the core read it through a pointer */
	bool process_watch_was = m->config.process_watch;
	config_done(&m->config);
	m->config = c;
	gpu_watch_reload(&m->gpu);
	census_tier_reload(m->census_tier);
	fast_tier_wake_all(&m->fast);
	watch_changes(m);
	store_cycle_reload(m->store_cycle);
	timer_rearm(m->sample_timer, 0);
	timer_rearm(m->store_timer, m->config.store_interval);
	discover_reload(&m->discover);
	if (m->config.process_watch != process_watch_was) {
		/* out of the loop before its descriptor closes */
		m->proc_events = event_source_free(m->proc_events);
		(void)discover_events_open(&m->discover);
		(void)watch_process_events(m);
	}
	timer_rearm(m->discover_timer, 0);
	manager_oom_reload(m);

	/* processes the new selectors no longer pick are let go */
	for (struct target *t = watched_first(m->watched), *next; t; t = next) {
		next = watched_next(t);
		if (!discover_still_selected(&m->config, t)) {
			log_pid_info(t->pid, "process %d (%s) no longer matches the configuration: not watched any more",
				     t->pid, t->ref->info.comm ? t->ref->info.comm : "?");
			let_go(m, t, false);
		}
	}
	return 0;
}

/* The paths, and the configuration: a bad one is refused at start. */
static int manager_load_config(struct manager *m, const struct manager_options *o)
{
	struct error err = { 0 };
	struct daemon_config c;
	int r;

	config_defaults(&m->config);
	m->config_path = strdup(o->config_path);
	m->state_dir = strdup(o->state_dir);
	if (!m->config_path || !m->state_dir || asprintf(&m->db_path, "%s" RW_PATH_SEPARATOR RW_DATABASE_NAME, o->state_dir) < 0) {
		m->db_path = NULL;
		return log_error_errno(ENOMEM, "out of memory");
	}
	r = config_load(m->config_path, &c, &err);
	if (r < 0)
		return log_error_errno(r, "bad configuration: %s", err.message);
	config_done(&m->config);
	m->config = c;
	return 0;
}

/* The machine's processes (the proc root, on Linux), the boot, and
 * discovery over them. */
static int manager_open_proc(struct manager *m, const struct manager_options *o)
{
	int r;

	m->discover = (struct discover){
		.config = &m->config,
		.follow = follow,
		.userdata = m,
	};
	r = discover_open(&m->discover, o->proc_root, &m->host_proc);
	m->root_fd = m->discover.root_fd;
	if (r < 0)
		return r;
	return discover_init(&m->discover, m->host_proc);
}

/* The state directory, held by its lock, and the store in it. */
static int manager_open_state(struct manager *m)
{
	int r;

	if (mkdir(m->state_dir, 0750) < 0 && errno != EEXIST)
		return log_error_errno(errno, "cannot create the state directory %s: %m", m->state_dir);
	if ((r = state_lock_take(m->state_dir, &m->lock)) < 0)
		return r;
	return store_cycle_open(m->db_path, &m->config, m->root_fd, &m->store_cycle);
}

/* The control socket, which sees the daemon through its core interface. */
static int manager_open_control(struct manager *m, const struct manager_options *o)
{
	struct core_interface core;
	manager_interface_init(m, &core);
	struct control_options co = {
		.socket_path = o->socket_path,
		.proc_root = o->proc_root,
		.root_fd = m->root_fd,
		.db_path = m->db_path,
	};
	return control_new(m->event, &core, &co, &m->control);
}

DEFINE_CLEANUP(struct manager *, manager_free)

int manager_new(const struct manager_options *o, struct manager **ret)
{
	_cleanup_(manager_freep) struct manager *m = calloc(1, sizeof(*m));
	uint64_t now;
	int r;

	if (!m)
		return log_error_errno(ENOMEM, "out of memory");
	m->root_fd = -1;
	if ((r = manager_load_config(m, o)) < 0 || (r = manager_open_proc(m, o)) < 0 ||
	    (r = manager_open_state(m)) < 0 || (r = setup_loop(m)) < 0)
		return r;
	gpu_watch_open(&m->gpu);
	watch_changes(m);
	now = now_monotonic_us();
	m->watched = watched_new();
	m->census_tier = census_tier_new(&m->config, now);
	if (!m->watched || !m->census_tier)
		return log_error_errno(ENOMEM, "out of memory");
	m->started_us = now;
	m->status_since = (struct status_rate_point){ .at_us = now };
	if ((r = manager_oom_open(m)) < 0 || (r = manager_open_control(m, o)) < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int manager_run(struct manager *m)
{
	int r;

	service_ready("store open; discovering processes");
	log_info("ramwatchd " RAMWATCH_VERSION " running: database %s, configuration %s", m->db_path,
		 m->config_path);
	r = event_loop_run(m->event);
	if (r < 0)
		log_error_errno(r, "event loop failed: %m");

	/* what was gathered since the last cycle is written before exit,
	 * with the OOM kills still waiting for their sources */
	manager_oom_stop(m);
	(void)run_store_cycle(m);
	struct writer_stats ws;
	writer_get_stats(store_cycle_writer(m->store_cycle), &ws);
	if (ws.queued > 0)
		log_warning("stopping with %" PRIu64 " rows the store would not take (%s)", ws.queued,
			    ws.message[0] ? ws.message : "see above");
	return r < 0 ? r : 0;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	/* first: its clients' census waiters are cancelled before the targets
	 * they wait on go */
	m->control = control_free(m->control);
	if (m->watched)
		while (watched_first(m->watched))
			let_go(m, watched_first(m->watched), false);
	m->watched = watched_free(m->watched);
	fast_tier_done(&m->fast);
	m->census_tier = census_tier_free(m->census_tier);
	event_source_free(m->sample_timer);
	event_source_free(m->store_timer);
	event_source_free(m->discover_timer);
	event_source_free(m->retention_timer);
	event_source_free(m->census_soon);
	event_source_free(m->proc_events);
	manager_oom_close(m);
	discover_done(&m->discover);
	m->store_cycle = store_cycle_close(m->store_cycle);
	/* after the store: the next daemon finds the database closed */
	m->lock = state_lock_release(m->lock);
	m->event = event_loop_free(m->event);
	if (m->root_fd >= 0)
		close(m->root_fd);
	config_done(&m->config);
	export_state_done(&m->export);
	gpu_watch_done(&m->gpu);
	free(m->config_path);
	free(m->state_dir);
	free(m->db_path);
	free(m);
	return NULL;
}
