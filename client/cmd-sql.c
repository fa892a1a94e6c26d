/* ramwatch sql: one read-only query on the database file, its rows written
 * as they come, as an aligned table, CSV (RFC 4180) or JSON.  The query
 * runs in schema/query.c, which refuses anything but reading and bounds
 * time, rows, size and memory; this file parses the command line and
 * writes the rows. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "paths.h"
#include "query.h"
#include "table.h"
#include "text.h"
#include "units.h"
#include "util.h"


/* The most columns a table lays out. */
#define SQL_TABLE_COLUMNS_MAX TABLE_COLUMNS_MAX

/* Room for a real as text: sign, 17 digits, point, exponent, ".0". */
#define REAL_TEXT_MAX 40

enum sql_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

/* A growing string, for a table cell. */
struct buf {
	char *p;
	size_t len, size;
};

static int buf_put(struct buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->size) {
		size_t want = b->size ? b->size : 64;
		while (want < b->len + n + 1)
			want *= 2;
		char *p = realloc(b->p, want);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->size = want;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_printf(struct buf *b, const char *fmt, ...) _printf_(2, 3);
static int buf_printf(struct buf *b, const char *fmt, ...)
{
	char s[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	return n < 0 ? -EINVAL : buf_put(b, s, (size_t)n < sizeof(s) ? (size_t)n : sizeof(s) - 1);
}

struct output {
	enum sql_format format;
	FILE *f;
	size_t n;
	bool started;       /* the columns are known: the output has begun */
	bool too_wide;      /* more columns than a table lays out */
	uint64_t rows;
	char **names;       /* table: the headers, escaped, until the table is made */
	struct table *table;
	struct buf cell;
};

/* ------------------------------------------------------------ values as text */

/* The shortest text that reads back as the same double, always with a
 * point or an exponent so it reads as a real (1.0, not 1).  Infinity is
 * "Inf" as SQLite writes it, or in JSON (which has no word for it)
 * 9e999, as SQLite's own JSON functions write it. */
static const char *format_real(char *buf, size_t size, double v, bool json)
{
	if (isnan(v))
		return json ? "null" : "NaN";
	if (isinf(v))
		return json ? (v > 0 ? "9e999" : "-9e999") : (v > 0 ? "Inf" : "-Inf");
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strncat(buf, ".0", size - strlen(buf) - 1);
	return buf;
}

static void put_hex(FILE *f, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02X", p[i]);
}

/* A cell of the table for a person's terminal: text_visible. */
static int put_visible(struct buf *b, const char *s, size_t n)
{
	_cleanup_free_ char *v = text_visible(s, n);

	return v ? buf_put(b, v, strlen(v)) : -ENOMEM;
}

/* ------------------------------------------------------------ the three formats */

static int make_table(struct output *out, const struct query_value *first)
{
	const char *h[SQL_TABLE_COLUMNS_MAX + 1] = { NULL };
	_cleanup_free_ char *right = NULL;
	char **names = out->names;

	for (size_t i = 0; i < out->n; i++) {
		/* numbers to the right, by the first row; table.c reads a
		 * leading '>' as "right-aligned", so a name that starts with
		 * one is always given one more */
		bool r = first && (first[i].type == QUERY_INTEGER || first[i].type == QUERY_REAL);
		if (r || names[i][0] == '>') {
			free(right);
			right = NULL;
			if (asprintf(&right, ">%s", names[i]) < 0)
				return -ENOMEM;
			free(names[i]);
			names[i] = TAKE_PTR(right);
		}
		h[i] = names[i];
	}
	out->table = table_new_v(h, out->n);
	return out->table ? 0 : -ENOMEM;
}

static int on_columns(void *userdata, size_t n, const char *const *names)
{
	struct output *out = userdata;

	out->n = n;
	if (out->format == FORMAT_TABLE) {
		if (n > SQL_TABLE_COLUMNS_MAX) {
			out->too_wide = true;
			return -E2BIG;
		}
		out->names = calloc(n ? n : 1, sizeof(*out->names));
		if (!out->names)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			out->cell.len = 0;
			if (put_visible(&out->cell, names[i], strlen(names[i])) < 0 ||
			    buf_put(&out->cell, "", 0) < 0 || !(out->names[i] = strdup(out->cell.p)))
				return -ENOMEM;
		}
	} else if (out->format == FORMAT_CSV) {
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				fputc(',', out->f);
			text_csv_write(out->f, names[i], strlen(names[i]));
		}
		if (n > 0)
			fputs("\r\n", out->f);
	} else {
		out->names = calloc(n ? n : 1, sizeof(*out->names));
		if (!out->names)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			if (!(out->names[i] = strdup(names[i])))
				return -ENOMEM;
	}
	out->started = true;
	return ferror(out->f) ? -EIO : 0;
}

static int table_row(struct output *out, const struct query_value *v)
{
	char real[REAL_TEXT_MAX];
	int r;

	if (!out->table && (r = make_table(out, v)) < 0)
		return r;
	for (size_t i = 0; i < out->n; i++) {
		struct buf *b = &out->cell;

		b->len = 0;
		r = buf_put(b, "", 0);
		switch (v[i].type) {
		case QUERY_NULL: r = buf_put(b, "NULL", 4); break;
		case QUERY_INTEGER: r = buf_printf(b, "%" PRId64, v[i].integer); break;
		case QUERY_REAL: {
			const char *text = format_real(real, sizeof(real), v[i].real, false);
			r = buf_put(b, text, strlen(text));
			break;
		}
		case QUERY_TEXT: r = put_visible(b, v[i].data, v[i].size); break;
		case QUERY_BLOB:
			for (size_t k = 0; k < v[i].size && r >= 0; k++)
				r = buf_printf(b, "%02X", ((const unsigned char *)v[i].data)[k]);
			break;
		}
		if (r < 0 || (r = table_add(out->table, b->p)) < 0)
			return r;
	}
	return 0;
}

static void csv_row(struct output *out, const struct query_value *v)
{
	char real[REAL_TEXT_MAX];

	for (size_t i = 0; i < out->n; i++) {
		if (i > 0)
			fputc(',', out->f);
		switch (v[i].type) {
		case QUERY_NULL: break;
		case QUERY_INTEGER: fprintf(out->f, "%" PRId64, v[i].integer); break;
		case QUERY_REAL: fputs(format_real(real, sizeof(real), v[i].real, false), out->f); break;
		case QUERY_TEXT: text_csv_write(out->f, v[i].data, v[i].size); break;
		case QUERY_BLOB: put_hex(out->f, v[i].data, v[i].size); break;
		}
	}
	fputs("\r\n", out->f);
}

static void json_row(struct output *out, const struct query_value *v)
{
	char real[REAL_TEXT_MAX];

	fputs(out->rows == 0 ? "[\n{" : ",\n{", out->f);
	for (size_t i = 0; i < out->n; i++) {
		if (i > 0)
			fputc(',', out->f);
		text_json_write(out->f, out->names[i], strlen(out->names[i]));
		fputc(':', out->f);
		switch (v[i].type) {
		case QUERY_NULL: fputs("null", out->f); break;
		case QUERY_INTEGER: fprintf(out->f, "%" PRId64, v[i].integer); break;
		case QUERY_REAL: fputs(format_real(real, sizeof(real), v[i].real, true), out->f); break;
		case QUERY_TEXT: text_json_write(out->f, v[i].data, v[i].size); break;
		case QUERY_BLOB:
			fputc('"', out->f);
			put_hex(out->f, v[i].data, v[i].size);
			fputc('"', out->f);
			break;
		}
	}
	fputc('}', out->f);
}

static int on_row(void *userdata, size_t n, const struct query_value *values)
{
	struct output *out = userdata;
	int r = 0;

	(void)n;
	switch (out->format) {
	case FORMAT_TABLE: r = table_row(out, values); break;
	case FORMAT_CSV: csv_row(out, values); break;
	case FORMAT_JSON: json_row(out, values); break;
	}
	if (r < 0)
		return r;
	out->rows++;
	return ferror(out->f) ? -EIO : 0;
}

/* Ends what was begun, so that the output is whole even when the query
 * stopped part of the way: the table is printed, the JSON array closed. */
static int finish(struct output *out)
{
	int r = 0;

	if (!out->started)
		return 0;
	if (out->format == FORMAT_TABLE) {
		if (!out->table && out->n > 0)
			r = make_table(out, NULL);
		if (r >= 0 && out->table)
			r = table_print(out->table, out->f);
	} else if (out->format == FORMAT_JSON)
		fputs(out->rows == 0 ? "[]\n" : "\n]\n", out->f);
	if (r < 0)
		return r;
	return fflush(out->f) != 0 || ferror(out->f) ? -EIO : 0;
}

static void output_done(struct output *out)
{
	for (size_t i = 0; out->names && i < out->n; i++)
		free(out->names[i]);
	free(out->names);
	table_free(out->table);
	free(out->cell.p);
}

/* ------------------------------------------------------------ the command line */

/* The message for a failed query, with what a person can do about it. */
static int query_failed(int r, const char *err, const struct output *out, const struct query_options *o)
{
	char t[UNITS_FORMAT_MAX];

	switch (r) {
	case -EACCES:
		return fail("%s — the database is readable by root and group ramwatch", err);
	case -ENOENT:
		return fail("%s — ramwatchd creates it when it starts; --db or $%s name another", err, RW_DATABASE_ENV);
	case -ETIME:
		/* written as --timeout takes it: "500ms", "1min 30s" */
		return fail("stopped after %s (--timeout)", units_format_duration(t, o->timeout_ms * UNITS_USEC_PER_MS));
	case -E2BIG:
		if (out->too_wide)
			return fail("the table format shows at most %u columns and the query has %zu: use --format "
				    "csv or --format json",
				    SQL_TABLE_COLUMNS_MAX, out->n);
		return fail("%s", err);
	case -EIO:
		if (!err[0])
			return fail("cannot write the output: %s", strerror(EIO));
		return fail("%s", err);
	default:
		if (!err[0])
			return fail("%s", strerror(-r));
		return fail("%s", err);
	}
}

int cmd_sql(const struct command *self, int argc, char **argv)
{
	struct query_options o = {
		.timeout_ms = RW_SQL_TIMEOUT_DEFAULT_MS,
		.max_rows = RW_SQL_ROWS_DEFAULT,
		.max_bytes = RW_SQL_BYTES_DEFAULT,
	};
	struct output out = { .format = FORMAT_TABLE, .f = stdout };
	struct query_callbacks cb = { .columns = on_columns, .row = on_row };
	struct query_result res = { 0 };
	_cleanup_free_ char *input = NULL;
	const char *db = NULL, *sql;
	struct error err = { 0 };
	char a[UNITS_FORMAT_MAX]; /* a size or a duration */
	int opt, r, w;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'd': db = optarg; break;
		case 'f':
			if (streq(optarg, "table"))
				out.format = FORMAT_TABLE;
			else if (streq(optarg, "csv"))
				out.format = FORMAT_CSV;
			else if (streq(optarg, "json"))
				out.format = FORMAT_JSON;
			else
				return usage_error("sql", "--format takes table, csv or json, not '%s'", optarg);
			break;
		case 't':
			if (units_parse_duration(optarg, UNITS_USEC_PER_MS, &o.timeout_ms) < 0 || o.timeout_ms == 0 ||
			    o.timeout_ms > RW_SQL_TIMEOUT_MAX_MS)
				return usage_error("sql",
						   "--timeout takes a duration of at least 1ms and at most %s (10, 0.5s, "
						   "2min), not '%s'",
						   units_format_duration(a, RW_SQL_TIMEOUT_MAX_MS * UNITS_USEC_PER_MS),
						   optarg);
			break;
		case 'r':
			if (parse_u64(optarg, 10, &o.max_rows) < 0 || o.max_rows == 0 || o.max_rows > RW_SQL_ROWS_MAX)
				return usage_error("sql", "--max-rows takes a number from 1 to %u, not '%s'",
						   RW_SQL_ROWS_MAX, optarg);
			break;
		case 'b':
			if (units_parse_size(optarg, &o.max_bytes) < 0 || o.max_bytes == 0 || o.max_bytes > RW_SQL_BYTES_MAX)
				return usage_error("sql", "--max-bytes takes a size from 1 to %s, not '%s'",
						   format_bytes(a, RW_SQL_BYTES_MAX), optarg);
			break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("sql", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("sql", "give one query (quoted), or '-' to read it from standard input");
	sql = argv[optind];
	if (streq(sql, "-")) {
		r = read_full_fd(STDIN_FILENO, RW_SQL_TEXT_MAX, &input, NULL);
		if (r == -EFBIG)
			return fail("the query on standard input is longer than %u bytes", RW_SQL_TEXT_MAX);
		if (r < 0)
			return fail("cannot read the query from standard input: %s", strerror(-r));
		sql = input;
	}
	if (!db) {
		db = getenv(RW_DATABASE_ENV);
		if (!db || !db[0])
			db = RW_DATABASE_DEFAULT;
	}
	o.path = db;

	r = query_run(&o, sql, &cb, &out, &res, &err);
	w = finish(&out);
	output_done(&out);
	if (r < 0)
		return query_failed(r, err.message, &out, &o);
	if (w < 0)
		return fail("cannot write the output: %s", strerror(-w));
	if (res.stop == QUERY_STOPPED_ROWS)
		return fail("stopped after %" PRIu64 " row%s (--max-rows)", res.rows, res.rows == 1 ? "" : "s");
	if (res.stop == QUERY_STOPPED_BYTES)
		return fail("stopped after %" PRIu64 " row%s: the next would pass %s of results (--max-bytes)",
			    res.rows, res.rows == 1 ? "" : "s", format_bytes(a, o.max_bytes));
	return 0;
}
