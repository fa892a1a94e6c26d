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
 * themselves. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

struct store;
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

/* The writer the tiers queue their rows on. */
struct writer *store_cycle_writer(const struct store_cycle *sc);
/* The write connection, for what the daemon tells of the store (its size,
 * its schema version). */
struct store *store_cycle_store(const struct store_cycle *sc);

/* Queues the rows of a cycle ending at now_ms: each process's samples and
 * the system row. */
void store_cycle_gather(struct store_cycle *sc, const struct watched *w, int64_t now_ms);
/* Writes everything queued in one transaction.  Returns 0 or the store's
 * negative errno (the rows stay queued; a full store asks for retention
 * soon). */
int store_cycle_flush(struct store_cycle *sc);
/* Whether the store asked for retention since the last call (and forgets
 * that it did). */
bool store_cycle_take_retention_due(struct store_cycle *sc);
/* Runs at most RW_RETENTION_STEPS bounded steps of retention. */
void store_cycle_retention(struct store_cycle *sc);
