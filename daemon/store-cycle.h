/* The store cycle and retention: the daemon's write side of the store.
 *
 *   store cycle  every StoreInterval: one row per watched process (min,
 *                max, last of its samples), a system row, and whatever the
 *                tiers queued on the writer, written in one transaction
 *   retention    every minute (and soon after the store says it is full):
 *                bounded steps of rollups and deletions
 *
 * store-cycle.c owns the write connection and the writer; the others
 * queue rows on the writer (store_cycle_writer) and never write
 * themselves.
 *
 * A damaged database (-EUCLEAN: PRAGMA quick_check at open, bounded by
 * RW_STORE_CHECK_MS, or SQLITE_CORRUPT/NOTADB from any write, retention or
 * read) is closed, moved aside (store-aside.h), replaced by a new one with
 * what could be read of it (store_salvage), and the rows queued meanwhile
 * are written to the new one: logged once at error level, and told by
 * store_cycle_corruption. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "store.h"

struct fast_tier;
struct store_cycle;
struct watched;
struct writer;

/* Opens (and migrates) the store at db_path, its size bounded by
 * MaxDatabaseSize of config (kept by the caller); root_fd is the proc
 * root for the system row (borrowed).  Returns 0 with *ret, or a negative
 * errno after logging why. */
int store_cycle_open(const char *db_path, const struct daemon_config *config, int root_fd, struct store_cycle **ret);
/* Closes the store (what is still queued is lost: store_cycle_flush
 * first); accepts NULL, returns NULL. */
struct store_cycle *store_cycle_close(struct store_cycle *sc);
/* After a reload: MaxDatabaseSize may have changed. */
void store_cycle_reload(struct store_cycle *sc);

/* The last damaged database found since the daemon started. */
struct store_corruption {
	uint64_t count;            /* damaged files found and moved aside */
	int64_t found_at;          /* unix ms, the last */
	char moved_to[4096];       /* where the last went */
	char what[256];            /* what was found, in SQLite's words */
	struct store_salvage kept; /* what of it the new database holds */
};

/* NULL until a damaged database was found. */
const struct store_corruption *store_cycle_corruption(const struct store_cycle *sc);
/* Whether the database was replaced by a new file since the last call
 * (and forgets that it was): readers of the old path must open it anew. */
bool store_cycle_take_replaced(struct store_cycle *sc);
/* A reader found the database damaged (what, in words): it is replaced as
 * a write that found it would.  Returns 0, or -ENOTRECOVERABLE when there
 * is no store any more (logged): the daemon stops. */
int store_cycle_damaged(struct store_cycle *sc, const char *what);

/* The writer the tiers queue their rows on. */
struct writer *store_cycle_writer(const struct store_cycle *sc);
/* The write connection, for what the daemon tells of the store (its size,
 * its schema version); NULL once a damaged file could not be replaced. */
struct store *store_cycle_store(const struct store_cycle *sc);

/* Queues the rows of a cycle ending at now_ms: each process's samples
 * (through the fast tier f) and the system row. */
void store_cycle_gather(struct store_cycle *sc, struct fast_tier *f, const struct watched *w, int64_t now_ms);
/* Writes everything queued in one transaction.  Returns 0 or the store's
 * negative errno (the rows stay queued; a full store asks for retention
 * soon); -ENOTRECOVERABLE when a damaged file could not be replaced (the
 * daemon stops). */
int store_cycle_flush(struct store_cycle *sc);
/* Whether the store asked for retention since the last call (and forgets
 * that it did). */
bool store_cycle_take_retention_due(struct store_cycle *sc);
/* Runs at most RW_RETENTION_STEPS bounded steps of retention. */
void store_cycle_retention(struct store_cycle *sc);
