/* A control server for the Windows tests (test_win_control.py): the
 * daemon's real control code (daemon/control*.c: framing, limits, timers,
 * requests, answers, the access rule, the worker reading the database)
 * over the named pipe (daemon/windows/control-transport.c), on the
 * Windows event loop, started the way the daemon is (service.h's
 * service_main: --install, --uninstall, --foreground, or as a service),
 * holding the state directory's lock (state-lock.h).  What it serves is a
 * daemon that watches nothing: its core (core-interface.h) is the few
 * lines below, so that the control code is tested apart from the
 * daemon's (ramwatchd.exe, test_win_daemon.py).
 *
 *   ctlserve.exe --foreground [--pipe NAME] [--state-dir DIR] [--db FILE]
 *   ctlserve.exe --install [--pipe NAME] ...   (then sc start ramwatch-ctlserve)
 *   ctlserve.exe --uninstall
 *
 * In the console it prints "ready" on stdout once the pipe serves. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "core-interface.h"
#include "event-loop.h"
#include "log.h"
#include "paths.h"
#include "service.h"
#include "state-lock.h"
#include "util.h"

static const struct service_def def = {
	.name = "ramwatch-ctlserve",
	.display_name = "ramwatch control test server",
	.description = "The ramwatch daemon's control pipe, for its tests",
};

struct core {
	uint64_t started_us;
	const char *db_path;
};

static void core_status(void *userdata, struct core_status *ret)
{
	struct core *c = userdata;
	*ret = (struct core_status){
		.started_us = c->started_us,
		.config_path = "(none)",
		.db_path = c->db_path,
		.scan_budget = 0.05,
	};
}

static int core_describe(void *userdata, int pid, struct core_process *ret)
{
	(void)userdata, (void)pid, (void)ret;
	return -ESRCH;
}

static int core_for_each(void *userdata, core_each_t fn, void *data)
{
	(void)userdata, (void)fn, (void)data;
	return 0;
}

static int core_mark(void *userdata, int pid, const char *name, int64_t by_uid, int64_t *ret_time)
{
	(void)userdata, (void)pid, (void)name, (void)by_uid, (void)ret_time;
	return -ESRCH;
}

static int core_request_census(void *userdata, int pid, bool full, bool light, census_done_t done, void *data,
			       struct census_waiter **ret_waiter)
{
	(void)userdata, (void)pid, (void)full, (void)light, (void)done, (void)data, (void)ret_waiter;
	return -ESRCH;
}

static void core_cancel_census(void *userdata, struct census_waiter *w)
{
	(void)userdata, (void)w;
}

static void core_store_damaged(void *userdata, const char *what)
{
	(void)userdata;
	log_warning("the database is damaged (%s)", what);
}

static int core_metrics_text(void *userdata, int64_t only_uid, const char *only_owner, char **ret, size_t *ret_len)
{
	(void)userdata, (void)only_uid, (void)only_owner;
	*ret = strdup("# no metrics\n");
	if (!*ret)
		return -ENOMEM;
	*ret_len = strlen(*ret);
	return 0;
}

static struct event_loop *loop;

static void on_request(enum event_request what, const char *why, void *userdata)
{
	(void)userdata;
	if (what == EVENT_RELOAD) {
		log_info("%s: nothing to reload", why);
		return;
	}
	log_info("%s: stopping", why);
	service_stopping();
	event_loop_exit(loop, 0);
}

static int run(int argc, char **argv)
{
	const char *pipe = NULL, *state_dir = RW_STATE_DIR_DEFAULT, *db = NULL;
	struct state_lock *lock = NULL;
	struct control *control = NULL;
	char db_default[1024];
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--foreground"))
			continue;
		if (i + 1 < argc && !strcmp(argv[i], "--pipe"))
			pipe = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--state-dir"))
			state_dir = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--db"))
			db = argv[++i];
		else {
			fprintf(stderr, "ctlserve: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!db) {
		snprintf(db_default, sizeof(db_default), "%s\\%s", state_dir, RW_DATABASE_NAME);
		db = db_default;
	}
	log_set_max_level(LOG_DEBUG);
	if ((r = state_lock_take(state_dir, &lock)) < 0)
		return 1;
	struct core core = { .started_us = now_monotonic_us(), .db_path = db };
	struct core_interface ci = {
		.userdata = &core,
		.status = core_status,
		.describe = core_describe,
		.for_each = core_for_each,
		.mark = core_mark,
		.request_census = core_request_census,
		.cancel_census = core_cancel_census,
		.store_damaged = core_store_damaged,
		.metrics_text = core_metrics_text,
	};
	struct control_options o = { .socket_path = pipe, .proc_root = NULL, .root_fd = -1, .db_path = db };
	if ((r = event_loop_new(&loop)) < 0 || (r = event_loop_watch_requests(loop, on_request, NULL)) < 0 ||
	    (r = control_new(loop, &ci, &o, &control)) < 0 || !control) {
		log_error_errno(r, "cannot serve: %m");
		control_free(control);
		event_loop_free(loop);
		state_lock_release(lock);
		return 1;
	}
	service_ready("serving");
	printf("ready\n");
	fflush(stdout);
	r = event_loop_run(loop);
	control_free(control);
	event_loop_free(loop);
	state_lock_release(lock);
	log_info("stopped");
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	log_open(true);
	return service_main(&def, argc, argv, run);
}
