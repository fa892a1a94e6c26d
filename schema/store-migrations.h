/* The store's migrations, carried in the binary: generated at build time
 * from schema/migrations/NNN-name.sql by schema/embed-migrations.py, so the
 * daemon needs no files beside itself to create or upgrade a database. */
#pragma once

#include <stddef.h>

struct store_migration {
	int version;      /* PRAGMA user_version once applied: 1, 2, ... */
	const char *name; /* "001-timelines.sql" */
	/* The table it makes again (new table, copy, drop, rename), or NULL:
	 * run with foreign keys off, which dropping the table needs, and
	 * their check before it commits. */
	const char *rebuilds;
	const char *sql;
};

/* In version order, store_migrations[i].version == i + 1. */
extern const struct store_migration store_migrations[];
extern const size_t store_n_migrations;
