/* Rows of a query as JSON objects, from a table of the query's columns:
 * each column's name in the SELECT is its key in the answer, and the table
 * says how its value is written.  The table is checked against the
 * statement once, when it is prepared: a SELECT list edited without its
 * table (a column added, two swapped) is refused there (-EPROTO), never
 * answered with values under each other's keys.
 *
 * SQLite names a result column by its AS clause; without one, a column
 * read as it stands (c.time) by the table's column name (time), as every
 * release of SQLite 3 has.  Were that ever to change, every query would be
 * refused at prepare, loudly, and every test of the answers would say so. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store-read-internal.h"

int read_query_prepare(struct store_reader *r, const struct read_query *q, sqlite3_stmt **ret)
{
	bool fresh = r->stmt[q->id] == NULL;
	sqlite3_stmt *st = NULL;
	int e, n;

	e = read_prepare(r, q->id, q->sql, &st);
	if (e < 0)
		return e;
	if (!fresh) {
		*ret = st;
		return 0;
	}
	n = sqlite3_column_count(st);
	for (int i = 0; i < n || (size_t)i < q->n_columns; i++) {
		const char *name = i < n ? sqlite3_column_name(st, i) : NULL;
		const char *key = (size_t)i < q->n_columns ? q->columns[i].key : NULL;

		if (name && key && strcmp(name, key) == 0)
			continue;
		/* the message first: the name belongs to the statement */
		e = read_failf(r, -EPROTO, "query %d: column %d is \"%s\" where its table has \"%s\"", (int)q->id, i + 1,
			       name ? name : "(none)", key ? key : "(none)");
		/* not kept: the next use checks again, and is refused again */
		sqlite3_finalize(st);
		r->stmt[q->id] = NULL;
		return e;
	}
	*ret = st;
	return 0;
}

static json_t *address_json(int64_t stored)
{
	char buf[24];

	/* stored as signed 64-bit (two's complement): back to unsigned */
	snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)stored);
	return json_string_nocheck(buf);
}

static json_t *column_json(sqlite3_stmt *st, int i, enum read_kind kind)
{
	int64_t v;

	switch (kind) {
	case READ_STR:
		return read_column_str(st, i);
	case READ_BOOL:
		return json_boolean(sqlite3_column_int(st, i));
	case READ_ADDRESS:
		return address_json(sqlite3_column_int64(st, i));
	case READ_INODE:
		/* inode numbers past 2^63 (stored negative) are not kept
		 * exactly by JSON readers: null, as census_to_json gives them */
		v = sqlite3_column_int64(st, i);
		return v >= 0 ? json_integer(v) : json_null();
	case READ_INT:
	default:
		return read_column_int(st, i);
	}
}

json_t *read_row_json(sqlite3_stmt *st, const struct read_query *q)
{
	json_t *o = json_object();
	int e = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < q->n_columns; i++)
		if (q->columns[i].kind != READ_KEY)
			e |= read_set(o, q->columns[i].key, column_json(st, (int)i, q->columns[i].kind));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int read_rows(struct store_reader *r, sqlite3_stmt *st, const struct read_query *q, unsigned limit, json_t *a,
	      read_row_seen_fn seen, void *userdata, const char *what)
{
	unsigned n = 0;
	int e;

	while ((e = read_step(r, st, what)) > 0) {
		if (limit > 0 && n == limit) {
			e = 1;
			break;
		}
		if (json_array_append_new(a, read_row_json(st, q)) < 0) {
			e = -ENOMEM;
			break;
		}
		if (seen)
			seen(st, userdata);
		n++;
	}
	read_done(st);
	return e;
}
