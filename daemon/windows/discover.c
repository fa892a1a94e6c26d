/* Discovery on Windows (discover.h): one snapshot of every process per
 * pass (win-procs.h), which gives each one's commit at once: a process
 * below MinPrivate costs a comparison, and the selectors judge each
 * instance (pid and creation time) once, its verdict carried from one
 * snapshot to the next (win_procs_carry), since neither its image nor
 * its owner changes.  Only what a selector needs beyond the image's name
 * (its path, for exe:) opens the process.  No process events: a pass
 * sees every process that started since the last one. */
#include "discover.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <winternl.h>

#include "daemon-clock.h"
#include "log.h"
#include "macro.h"
#include "target-os.h"
#include "util.h"
#include "watched.h"

/* What the selectors said of an instance (struct discover's verdicts). */
enum verdict {
	UNJUDGED, /* not asked yet (below MinPrivate until now, or new) */
	PASSED,   /* not picked: not asked again */
};

/* SYSTEM_TIMEOFDAY_INFORMATION's first field (winternl.h names the class
 * only): the boot's time, FILETIME ticks. */
#define SYSTEM_TIME_OF_DAY_INFORMATION 3
struct time_of_day {
	LARGE_INTEGER boot_time, current_time, time_zone_bias;
	ULONG time_zone_id, reserved;
	ULONGLONG boot_time_bias, sleep_time_bias;
};

/* The boot as the store names it: its time, which stays the same while
 * the machine runs, whatever the daemon's restarts. */
static int boot_id(char **ret)
{
	struct time_of_day t = { 0 };
	int64_t boot_ms;

	if (NtQuerySystemInformation(SYSTEM_TIME_OF_DAY_INFORMATION, &t, sizeof(t), NULL) >= 0 && t.boot_time.QuadPart > 0)
		boot_ms = win_procs_start_ms((uint64_t)t.boot_time.QuadPart);
	else /* the uptime, to the second */
		boot_ms = (now_realtime_ms() - (int64_t)GetTickCount64()) / 1000 * 1000;
	return asprintf(ret, "windows-boot-%" PRId64, boot_ms) < 0 ? -ENOMEM : 0;
}

int discover_open(struct discover *d, const char *proc_root, bool *ret_host)
{
	int r;

	d->root_fd = -1;
	if (proc_root)
		return log_error_errno(EINVAL, "Windows has no proc root (%s)", proc_root);
	if ((r = boot_id(&d->boot_id)) < 0)
		return log_error_errno(r, "out of memory");
	d->self = (int)GetCurrentProcessId();
	/* no kernel events to listen to: neither process events nor a
	 * change watch (windows/change-watch.c) */
	*ret_host = false;
	return 0;
}

int discover_init(struct discover *d, bool events)
{
	(void)events; /* none on Windows */
	d->last = NULL;
	d->verdicts = NULL;
	return 0;
}

void discover_done(struct discover *d)
{
	if (!d)
		return;
	d->last = win_procs_free(d->last);
	free(d->verdicts);
	d->verdicts = NULL;
	win_procs_reader_done(&d->reader);
	free(d->boot_id);
	d->boot_id = NULL;
}

bool discover_events_source(const struct discover *d, event_fd_t *ret)
{
	(void)d;
	(void)ret;
	return false;
}

int discover_events_read(struct discover *d)
{
	(void)d;
	return 0;
}

enum discover_source discover_events_open(struct discover *d)
{
	(void)d; /* no process events on Windows */
	return DISCOVER_SNAPSHOT;
}

enum discover_source discover_source(const struct discover *d)
{
	(void)d;
	return DISCOVER_SNAPSHOT;
}

void discover_get_status(const struct discover *d, struct discover_status *ret)
{
	/* every pass is a snapshot of every process, and none is better */
	*ret = (struct discover_status){
		.source = DISCOVER_SNAPSHOT,
		.passes = d->passes,
		.full_passes = d->passes,
	};
}

void discover_reload(struct discover *d)
{
	/* what the selectors passed over was judged by the old ones */
	d->last = win_procs_free(d->last);
	free(d->verdicts);
	d->verdicts = NULL;
}

/* Watch= empty means every process (after Ignore=). */
static bool selected(const struct daemon_config *c, const struct selector_facts *f)
{
	if (c->watch.n > 0 && !selector_list_match(&c->watch, f))
		return false;
	return !selector_list_match(&c->ignore, f);
}

static unsigned needs_of(const struct daemon_config *c)
{
	return selector_list_needs(&c->watch) | selector_list_needs(&c->ignore);
}

bool discover_still_selected(const struct daemon_config *c, const struct target *t)
{
	struct selector_facts f = {
		.pid = t->pid,
		.comm = t->ref->info.comm,
		.exe = t->ref->info.exe,
		.uid = -1,
	};
	return selected(c, &f);
}

/* Asks the selectors about p, and follows it when they pick it.  Returns
 * the verdict, or -ENOMEM. */
static int judge(struct discover *d, const struct win_proc *p)
{
	const struct daemon_config *c = d->config;
	_cleanup_free_ char *exe = NULL;
	struct target *t = NULL;
	int r;

	d->judged++;
	/* Windows has no uid, nor cgroups; the command line is in the
	 * process's memory (a census reads it): selectors on them pick none */
	if (needs_of(c) & SELECTOR_NEEDS_EXE) {
		r = target_image_path(p, &exe);
		if (r == -ESRCH)
			return UNJUDGED; /* gone: the next snapshot does not list it */
		if (r < 0)
			return r;
	}
	struct selector_facts f = { .pid = (int)p->pid, .comm = p->name, .exe = exe, .uid = -1 };
	if (!selected(c, &f))
		return PASSED;
	r = target_new_windows(p, d->boot_id, exe, daemon_clock_now_ms(), &t);
	if (r == -ESRCH)
		return UNJUDGED;
	if (r < 0)
		return r;
	r = d->follow(d->userdata, t);
	if (r < 0)
		return r;
	char a[FORMAT_BYTES_MAX];
	log_pid_info((int)p->pid, "watching process %u (%s): commit %s", (unsigned)p->pid, p->name,
		     format_bytes(a, p->commit));
	return UNJUDGED; /* followed: watched_find passes over it from now on */
}

int discover_pass(struct discover *d, const struct watched *w)
{
	const struct daemon_config *c = d->config;
	struct win_procs *now = NULL;
	struct error err = { 0 };
	int r;

	d->passes++;
	r = win_procs_read(&d->reader, &now, &err);
	if (r < 0)
		return log_warning_errno(r, "discovery failed: %s", err.message);
	uint8_t *verdicts = calloc(now->n ? now->n : 1, 1);
	if (!verdicts) {
		win_procs_free(now);
		return log_warning_errno(ENOMEM, "discovery failed: out of memory");
	}
	win_procs_carry(d->last, d->verdicts, now, verdicts);

	r = 0;
	for (size_t i = 0; i < now->n && r >= 0; i++) {
		const struct win_proc *p = &now->procs[i];
		/* the idle process and the system's own (no creation time) hold
		 * no user memory; a watched pid is its instance's until it exits */
		if (p->created == 0 || p->pid == (uint32_t)d->self || verdicts[i] == PASSED ||
		    p->commit < c->min_private || watched_find(w, (int)p->pid))
			continue;
		if (!watched_has_room(w, c->max_processes)) {
			d->over_limit++;
			if (!d->over_limit_logged)
				log_warning("already watching MaxProcesses=%u processes: process %u (%s) and any others "
					    "are not followed until some exit",
					    c->max_processes, (unsigned)p->pid, p->name);
			d->over_limit_logged = true;
			continue;
		}
		r = judge(d, p);
		if (r >= 0)
			verdicts[i] = (uint8_t)r;
	}
	win_procs_free(d->last);
	free(d->verdicts);
	d->last = now;
	d->verdicts = verdicts;
	if (r < 0)
		return log_warning_errno(r, "discovery failed: %m");
	if (watched_has_room(w, c->max_processes))
		d->over_limit_logged = false;
	return 0;
}
