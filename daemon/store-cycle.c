/* The store cycle and retention (store-cycle.h). */
#include "store-cycle.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon-clock.h"
#include "fast-tier.h"
#include "malloc-tuning.h"
#include "limits.h"
#include "log.h"
#include "store-aside.h"
#include "store.h"
#include "sysmem.h"
#include "target.h"
#include "util.h"
#include "watched.h"
#include "writer.h"

/* Raw fast-tier rows are rolled up into minutes after a day, minute rows
 * into hours after a week (ramwatchd.conf(5), Retention=). */
#define RAW_ROWS_FOR_MS (24ll * 3600 * 1000)
#define MINUTE_ROWS_FOR_MS (7ll * 24 * 3600 * 1000)

struct store_cycle {
	struct store *store;  /* NULL once a damaged file could not be replaced */
	struct writer *writer;
	const struct daemon_config *config;
	char *db_path;
	int root_fd;
	bool retention_due; /* the store is full: run retention soon */
	bool replaced;      /* a new file since store_cycle_take_replaced */
	struct store_corruption corruption;
};

static int open_store(struct store_cycle *sc, unsigned check_ms, struct error *err)
{
	struct store_options so = {
		.path = sc->db_path,
		.max_size = sc->config->max_database_size,
		/* WAL readers never block the writer; only another writer does.
		 * Waiting long for it would stall sampling (one thread), so the
		 * wait is short and the writer's queue does the rest. */
		.busy_timeout_ms = 100,
		.check_ms = check_ms,
		/* a steady process's identical rows are stored once over their
		 * span (ramwatch-schema(7), COALESCED ROWS) */
		.coalesce = true,
	};

	return store_open(&so, &sc->store, err);
}

/* The database was found damaged (what says how): it is closed, moved
 * aside with its -wal and -shm, and a new one takes its place, with what
 * could be read of the old one copied over.  Logged once, at error level.
 * Returns 0, or a negative errno after logging why (then there is no store
 * any more: the daemon stops). */
static int replace_damaged(struct store_cycle *sc, const char *what)
{
	struct store_corruption *k = &sc->corruption;
	struct error err = { 0 };
	char found[sizeof(k->what)], kept[512] = "";
	int64_t now = now_realtime_ms();
	int r;

	/* the store's message starts with the path, which the log names */
	size_t n = strlen(sc->db_path);
	if (what && strncmp(what, sc->db_path, n) == 0 && what[n] == ':' && what[n + 1] == ' ')
		what += n + 2;
	snprintf(found, sizeof(found), "%s", what && *what ? what : "damaged");
	sc->store = store_close(sc->store);
	r = store_aside_move(sc->db_path, now, k->moved_to, sizeof(k->moved_to));
	if (r < 0)
		return log_error_errno(r, "the database %s is damaged (%s) and cannot be moved aside: %m; stopping",
				       sc->db_path, found);
	r = open_store(sc, 0, &err);
	if (r < 0)
		return log_error_errno(r, "the database %s is damaged (%s); moved to %s, but a new one cannot be created "
				       "(%s); stopping", sc->db_path, found, k->moved_to, error_message_or_strerror(&err, r));
	(void)store_salvage(sc->store, k->moved_to, &k->kept);
	if (k->kept.why[0] && k->kept.processes == 0)
		snprintf(kept, sizeof(kept), "nothing of it kept: %s", k->kept.why);
	else
		snprintf(kept, sizeof(kept),
			 "kept %" PRIu64 " processes and the last census of %" PRIu64 " of them%s%s%s%s",
			 k->kept.processes, k->kept.censuses,
			 k->kept.skipped_processes || k->kept.skipped_censuses || k->kept.unreadable
				 ? ", skipped what could not be read" : "",
			 k->kept.unreadable ? " (the list of processes ends early)" : "",
			 k->kept.why[0] ? ", then " : "", k->kept.why);
	k->count++;
	k->found_at = now;
	snprintf(k->what, sizeof(k->what), "%s", found);
	if (sc->writer)
		writer_set_store(sc->writer, sc->store);
	sc->replaced = true;
	log_error("the database %s is damaged (%s): moved aside to %s (with its -wal and -shm), which ramwatchd never "
		  "deletes; a new database is in use, %s; queued rows go to the new one",
		  sc->db_path, found, k->moved_to, kept);
	return 0;
}

int store_cycle_open(const char *db_path, const struct daemon_config *config, int root_fd, struct store_cycle **ret)
{
	struct error err = { 0 };
	struct store_cycle *sc = calloc(1, sizeof(*sc));
	uint64_t check_us = 0;
	int r;

	if (!sc || !(sc->db_path = strdup(db_path))) {
		free(sc);
		return log_error_errno(ENOMEM, "out of memory");
	}
	sc->config = config;
	sc->root_fd = root_fd;
	r = open_store(sc, RW_STORE_CHECK_MS, &err);
	if (r >= 0 && !store_checked_whole(sc->store, &check_us) && check_us > 0)
		log_notice("store %s checked for %" PRIu64 " ms, not to its end (the bound is %u ms): the rest is "
			   "checked as it is read and written", db_path, check_us / 1000, RW_STORE_CHECK_MS);
	else if (r >= 0 && check_us > 0)
		log_debug("store %s checked in %" PRIu64 " ms: ok", db_path, check_us / 1000);
	if (r == -EUCLEAN)
		/* a database of a newer version is -EPROTO, refused untouched */
		r = replace_damaged(sc, err.message);
	else if (r < 0)
		log_error_errno(r, "cannot open the store %s: %s", db_path, error_message_or_strerror(&err, r));
	if (r < 0) {
		store_cycle_close(sc);
		return r;
	}
	sc->writer = writer_new(sc->store);
	if (!sc->writer) {
		store_cycle_close(sc);
		return log_error_errno(ENOMEM, "out of memory");
	}
	log_info("store %s open (schema version %d)", db_path, store_schema_version(sc->store));
	*ret = sc;
	return 0;
}

struct store_cycle *store_cycle_close(struct store_cycle *sc)
{
	if (!sc)
		return NULL;
	writer_free(sc->writer);
	store_close(sc->store);
	free(sc->db_path);
	free(sc);
	return NULL;
}

void store_cycle_reload(struct store_cycle *sc)
{
	if (sc->store)
		(void)store_set_max_size(sc->store, sc->config->max_database_size);
}

const struct store_corruption *store_cycle_corruption(const struct store_cycle *sc)
{
	return sc->corruption.count > 0 ? &sc->corruption : NULL;
}

bool store_cycle_take_replaced(struct store_cycle *sc)
{
	bool replaced = sc->replaced;
	sc->replaced = false;
	return replaced;
}

int store_cycle_damaged(struct store_cycle *sc, const char *what)
{
	if (!sc->store)
		return -ENOTRECOVERABLE;
	return replace_damaged(sc, what) < 0 ? -ENOTRECOVERABLE : 0;
}

struct writer *store_cycle_writer(const struct store_cycle *sc)
{
	return sc->writer;
}

struct store *store_cycle_store(const struct store_cycle *sc)
{
	return sc->store;
}

void store_cycle_gather(struct store_cycle *sc, struct fast_tier *f, const struct watched *w, int64_t now_ms)
{
	struct store_system sys;

	for (struct target *t = watched_first(w); t; t = watched_next(t))
		fast_tier_queue(f, t, sc->writer, now_ms);
	if (sysmem_read(sc->root_fd, now_ms, &sys) == 0)
		(void)writer_add_system(sc->writer, &sys);
}

int store_cycle_flush(struct store_cycle *sc)
{
	struct writer_stats before, after;
	int r;

	if (!sc->store)
		return -ENOTRECOVERABLE;
	writer_get_stats(sc->writer, &before);
	r = writer_flush(sc->writer);
	if (r == -EUCLEAN) {
		/* the rows stay queued while the file is replaced, then go to
		 * the new one at once */
		if (replace_damaged(sc, store_error(sc->store)) < 0)
			return -ENOTRECOVERABLE;
		r = writer_flush(sc->writer);
	}
	if (r == -ENOSPC && sc->config->max_database_size > 0)
		sc->retention_due = true;
	writer_get_stats(sc->writer, &after);
	/* Censuses are large and short-lived, the targets small and long-lived:
	 * once a batch of censuses is freed, the heap is full of holes that
	 * glibc keeps (malloc-tuning.h). */
	if (after.written[WRITER_CENSUS] != before.written[WRITER_CENSUS])
		malloc_tuning_release();
	return r;
}

bool store_cycle_take_retention_due(struct store_cycle *sc)
{
	bool due = sc->retention_due;
	sc->retention_due = false;
	return due;
}

void store_cycle_retention(struct store_cycle *sc)
{
	struct store_retention rp = {
		.now = daemon_clock_retention_now_ms(),
		.keep = (int64_t)(sc->config->retention / 1000),
		.raw_for = RAW_ROWS_FOR_MS,
		.minutes_for = MINUTE_ROWS_FOR_MS,
		.max_size = sc->config->max_database_size,
		.batch = RW_RETENTION_BATCH,
	};
	bool more = true;

	/* the two differ once the wall clock was set forward (daemon-clock.h) */
	log_debug("retention from %" PRId64 " (unix ms; the wall clock says %" PRId64 ")", rp.now, now_realtime_ms());
	for (unsigned i = 0; sc->store && more && i < RW_RETENTION_STEPS; i++) {
		int r = store_retention_step(sc->store, &rp, &more);
		if (r == -EUCLEAN) {
			(void)replace_damaged(sc, store_error(sc->store));
			return;
		}
		if (r < 0) {
			log_debug_errno(r, "retention step failed (%s); trying again later", store_error(sc->store));
			return;
		}
	}
}
