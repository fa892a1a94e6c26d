/* The store cycle and retention (store-cycle.h). */
#include "store-cycle.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "fast-tier.h"
#include "limits.h"
#include "log.h"
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
	struct store *store;
	struct writer *writer;
	const struct daemon_config *config;
	int root_fd;
	bool retention_due; /* the store is full: run retention soon */
};

int store_cycle_open(const char *db_path, const struct daemon_config *config, int root_fd, struct store_cycle **ret)
{
	struct error err = { 0 };
	struct store_options so = {
		.path = db_path,
		.max_size = config->max_database_size,
		/* WAL readers never block the writer; only another writer does.
		 * Waiting long for it would stall sampling (one thread), so the
		 * wait is short and the writer's queue does the rest. */
		.busy_timeout_ms = 100,
	};
	struct store_cycle *sc = calloc(1, sizeof(*sc));
	int r;

	if (!sc)
		return log_error_errno(ENOMEM, "out of memory");
	sc->config = config;
	sc->root_fd = root_fd;
	r = store_open(&so, &sc->store, &err);
	if (r < 0) {
		store_cycle_close(sc);
		return log_error_errno(r, "cannot open the store %s: %s", db_path, error_message_or_strerror(&err, r));
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
	free(sc);
	return NULL;
}

void store_cycle_reload(struct store_cycle *sc)
{
	(void)store_set_max_size(sc->store, sc->config->max_database_size);
}

struct writer *store_cycle_writer(const struct store_cycle *sc)
{
	return sc->writer;
}

struct store *store_cycle_store(const struct store_cycle *sc)
{
	return sc->store;
}

void store_cycle_gather(struct store_cycle *sc, const struct watched *w, int64_t now_ms)
{
	struct store_system sys;

	for (struct target *t = watched_first(w); t; t = watched_next(t))
		fast_tier_queue(t, sc->writer, now_ms);
	if (sysmem_read(sc->root_fd, now_ms, &sys) == 0)
		(void)writer_add_system(sc->writer, &sys);
}

int store_cycle_flush(struct store_cycle *sc)
{
	struct writer_stats before, after;
	int r;

	writer_get_stats(sc->writer, &before);
	r = writer_flush(sc->writer);
	if (r == -ENOSPC && sc->config->max_database_size > 0)
		sc->retention_due = true;
	writer_get_stats(sc->writer, &after);
	/* Censuses are large and short-lived, the targets small and long-lived:
	 * once a batch of censuses is freed, the heap is full of holes that
	 * glibc keeps.  malloc_trim hands their whole pages back (since glibc
	 * 2.8 it releases free pages inside the heap, not only at its top),
	 * which keeps the daemon's resident size that of what it holds. */
	if (after.written[WRITER_CENSUS] != before.written[WRITER_CENSUS])
		malloc_trim(0);
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
		.now = now_realtime_ms(),
		.keep = (int64_t)(sc->config->retention / 1000),
		.raw_for = RAW_ROWS_FOR_MS,
		.minutes_for = MINUTE_ROWS_FOR_MS,
		.max_size = sc->config->max_database_size,
		.batch = RW_RETENTION_BATCH,
	};
	bool more = true;

	for (unsigned i = 0; more && i < RW_RETENTION_STEPS; i++) {
		int r = store_retention_step(sc->store, &rp, &more);
		if (r < 0) {
			log_debug_errno(r, "retention step failed (%s); trying again later", store_error(sc->store));
			return;
		}
	}
}
