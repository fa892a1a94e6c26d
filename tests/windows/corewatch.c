/* The daemon's core on Windows run for real, without its event loop: the
 * ticks of ramwatchd's manager (discovery every DiscoverInterval, the fast
 * tier's round every SampleInterval and the census pass after it, the
 * store cycle every StoreInterval) called in turn from a plain loop, over
 * build/windows/lib/libdaemon.a: Windows's discovery (a snapshot per
 * pass), the fast tier's reads from the round's snapshot, censuses by the
 * Windows scanner within ScanBudget, the store written as the daemon
 * writes it.  For test_core.py, which reads the database with Linux's
 * ramwatch sql.
 *
 *   corewatch.exe CONFIG DATABASE [--no-samples]
 *
 * Runs until its standard input closes, then writes what was gathered and
 * exits.  Says on standard output, one JSON line each, what it did:
 *   {"event": "followed", "pid", "start_time", "comm", "exe", "owner", "boot_id"}
 *   {"event": "sample", "pid", "private", "resident"}       each full sample,
 *                                                             unless --no-samples
 *   {"event": "census", "pid", "trigger", "status"}
 *   {"event": "exited", "pid", "start_time"}
 *   {"event": "stored"}                                       after each store cycle */
#include <windows.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census-tier.h"
#include "config.h"
#include "daemon-clock.h"
#include "discover.h"
#include "fast-tier.h"
#include "log.h"
#include "store-cycle.h"
#include "target.h"
#include "util.h"
#include "watched.h"
#include "writer.h"

struct core {
	struct daemon_config config;
	struct watched *watched;
	struct discover discover;
	struct fast_tier fast;
	struct census_tier *census_tier;
	struct store_cycle *store_cycle;
};

static atomic_bool quit;
static bool print_samples = true;

/* JSON's string escapes for what the core names (comm, exe, owner). */
static void put_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int follow(void *userdata, struct target *t)
{
	struct core *c = userdata;
	int r = watched_add(c->watched, t, c->config.max_processes);
	if (r < 0) {
		target_free(t);
		return r;
	}
	if ((r = fast_tier_add(&c->fast, t)) < 0) {
		watched_remove(c->watched, t, false);
		target_free(t);
		return r;
	}
	(void)writer_add_process(store_cycle_writer(c->store_cycle), t->ref);
	census_tier_first_sight(c->census_tier, t, now_monotonic_us());
	const struct store_process *info = &t->ref->info;
	printf("{\"event\": \"followed\", \"pid\": %d, \"start_time\": %" PRIu64 ", \"start_ms\": %" PRId64 ", \"comm\": ",
	       t->pid, t->start_time, info->start_time);
	put_string(info->comm);
	printf(", \"exe\": ");
	put_string(info->exe);
	printf(", \"owner\": ");
	put_string(info->owner);
	printf(", \"boot_id\": ");
	put_string(info->boot_id);
	printf("}\n");
	fflush(stdout);
	return 0;
}

/* As the manager lets a process go (manager.c's let_go). */
static void let_go(struct core *c, struct target *t, bool exited)
{
	struct writer *writer = store_cycle_writer(c->store_cycle);
	int64_t now = daemon_clock_now_ms();

	if (exited) {
		proc_ref_exited(t->ref, now);
		printf("{\"event\": \"exited\", \"pid\": %d, \"start_time\": %" PRIu64 "}\n", t->pid, t->start_time);
		fflush(stdout);
	}
	fast_tier_queue(&c->fast, t, writer, now);
	(void)writer_add_process(writer, t->ref);
	census_tier_forget(c->census_tier, t, exited, now);
	fast_tier_remove(&c->fast, t);
	watched_remove(c->watched, t, exited);
	target_free(t);
}

static void census_pass(struct core *c)
{
	struct target *t;

	census_tier_refill(c->census_tier, now_monotonic_us());
	while ((t = census_tier_next(c->census_tier, c->watched))) {
		enum store_trigger trigger = schedule_trigger(&t->census.plan);
		int pid = t->pid;
		enum census_status status = census_tier_take(c->census_tier, t, STEADY_MAPPINGS_UNKNOWN, NULL,
							     store_cycle_writer(c->store_cycle));
		printf("{\"event\": \"census\", \"pid\": %d, \"trigger\": \"%s\", \"status\": \"%s\"}\n", pid,
		       store_trigger_name(trigger), store_census_status_name(status));
		fflush(stdout);
		if (status == CENSUS_EXITED)
			let_go(c, t, true);
		else
			fast_tier_wake(&c->fast, t);
		census_tier_refill(c->census_tier, now_monotonic_us());
	}
}

/* The manager's on_sample. */
static void sample_round(struct core *c)
{
	int64_t now_ms = daemon_clock_now_ms();
	uint64_t now = now_monotonic_us();
	bool due = false;

	(void)fast_tier_begin_round(&c->fast);
	for (size_t i = fast_tier_count(&c->fast); i-- > 0;) {
		struct target *t;
		int r = fast_tier_sample(&c->fast, i, now_ms, now, (int64_t)(c->config.store_interval / 1000), &t);
		if (r > 0)
			continue;
		if (r == -ESRCH) {
			let_go(c, t, true);
			continue;
		}
		if (r < 0)
			continue;
		if (print_samples)
			printf("{\"event\": \"sample\", \"pid\": %d, \"private\": %" PRIu64 ", \"resident\": %" PRIu64
			       "}\n",
			       t->pid, t->fast.private, t->fast.resident);
		fast_tier_quiet(&c->fast, t, census_tier_sampled(c->census_tier, t, now));
		due |= census_tier_pending(&t->census);
	}
	if (due)
		census_pass(c);
	fflush(stdout);
}

static void store(struct core *c)
{
	store_cycle_gather(c->store_cycle, &c->fast, c->watched, daemon_clock_now_ms());
	(void)store_cycle_flush(c->store_cycle);
	printf("{\"event\": \"stored\"}\n");
	fflush(stdout);
}

static void *read_stdin(void *arg)
{
	char line[256];
	(void)arg;
	while (fgets(line, sizeof(line), stdin))
		;
	atomic_store(&quit, true);
	return NULL;
}

int main(int argc, char **argv)
{
	struct core c = { 0 };
	struct error err = { 0 };
	pthread_t reader;
	bool host;
	int r;

	if (argc == 4 && strcmp(argv[3], "--no-samples") == 0)
		print_samples = false;
	else if (argc != 3) {
		fprintf(stderr, "usage: corewatch.exe CONFIG DATABASE [--no-samples]\n");
		return 2;
	}
	if ((r = config_load(argv[1], &c.config, &err)) < 0) {
		fprintf(stderr, "corewatch: bad configuration: %s\n", err.message);
		return 1;
	}
	c.watched = watched_new();
	c.census_tier = census_tier_new(&c.config, now_monotonic_us());
	c.discover = (struct discover){ .config = &c.config, .follow = follow, .userdata = &c };
	if (!c.watched || !c.census_tier || discover_open(&c.discover, NULL, &host) < 0 ||
	    discover_init(&c.discover, host) < 0 || store_cycle_open(argv[2], &c.config, -1, &c.store_cycle) < 0)
		return 1;
	if (fast_tier_watch(&c.fast, true, c.config.max_processes) != -EOPNOTSUPP) {
		fprintf(stderr, "corewatch: a change watch on Windows\n");
		return 1;
	}
	if (pthread_create(&reader, NULL, read_stdin, NULL) != 0)
		return 1;
	printf("{\"event\": \"started\", \"pid\": %lu}\n", (unsigned long)GetCurrentProcessId());
	fflush(stdout);

	uint64_t next_discover = 0, next_store = now_monotonic_us() + c.config.store_interval;
	while (!atomic_load(&quit)) {
		uint64_t now = now_monotonic_us();
		if (now >= next_discover) {
			(void)discover_pass(&c.discover, c.watched);
			next_discover = now + c.config.discover_interval;
		}
		sample_round(&c);
		if (now_monotonic_us() >= next_store) {
			store(&c);
			next_store = now_monotonic_us() + c.config.store_interval;
		}
		Sleep((DWORD)(c.config.sample_interval / 1000));
	}
	store(&c);
	while (watched_first(c.watched))
		let_go(&c, watched_first(c.watched), false);
	store(&c);
	c.watched = watched_free(c.watched);
	fast_tier_done(&c.fast);
	c.census_tier = census_tier_free(c.census_tier);
	discover_done(&c.discover);
	c.store_cycle = store_cycle_close(c.store_cycle);
	config_done(&c.config);
	return 0;
}
