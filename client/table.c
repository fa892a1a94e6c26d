/* Aligned text and Markdown tables. */
#include "table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


struct table {
	size_t columns;
	char *header[TABLE_COLUMNS_MAX];
	enum table_align align[TABLE_COLUMNS_MAX];
	char **cells;
	size_t n_cells, allocated;
};

struct table *table_new_v(const char *const *headers, size_t n)
{
	struct table *t;

	if (n > TABLE_COLUMNS_MAX)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *h = headers[i];
		t->align[t->columns] = h[0] == '>' ? TABLE_RIGHT : TABLE_LEFT;
		t->header[t->columns] = strdup(h[0] == '>' ? h + 1 : h);
		if (!t->header[t->columns++])
			return table_free(t);
	}
	return t;
}

struct table *table_new(const char *first_header, ...)
{
	const char *headers[TABLE_COLUMNS_MAX];
	size_t n = 0;
	va_list ap;

	va_start(ap, first_header);
	for (const char *h = first_header; h && n < TABLE_COLUMNS_MAX; h = va_arg(ap, const char *))
		headers[n++] = h;
	va_end(ap);
	return table_new_v(headers, n);
}

struct table *table_free(struct table *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->columns; i++)
		free(t->header[i]);
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
	return NULL;
}

int table_add(struct table *t, const char *cell)
{
	if (t->n_cells == t->allocated) {
		size_t want = t->allocated ? t->allocated * 2 : 64;
		char **c = realloc(t->cells, want * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->allocated = want;
	}
	t->cells[t->n_cells] = strdup(cell ? cell : "");
	if (!t->cells[t->n_cells])
		return -ENOMEM;
	t->n_cells++;
	return 0;
}

int table_addf(struct table *t, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	int r = table_add(t, s);
	free(s);
	return r;
}

size_t table_rows(const struct table *t)
{
	return t->columns ? t->n_cells / t->columns : 0;
}

/* Display width: count UTF-8 code points, not bytes (paths and names may
 * hold non-ASCII; wide characters are rare enough to ignore). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

static const char *cell(const struct table *t, size_t row, size_t col)
{
	size_t i = row * t->columns + col;
	return i < t->n_cells ? t->cells[i] : "";
}

static void print_row(const struct table *t, FILE *f, const size_t *w, size_t row, bool header)
{
	for (size_t c = 0; c < t->columns; c++) {
		const char *s = header ? t->header[c] : cell(t, row, c);
		size_t pad = w[c] - width(s);
		bool last = c + 1 == t->columns;
		if (t->align[c] == TABLE_RIGHT)
			fprintf(f, "%*s%s", (int)pad, "", s);
		else
			fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
		fputs(last ? "\n" : "  ", f);
	}
}

int table_print(const struct table *t, FILE *f)
{
	size_t w[TABLE_COLUMNS_MAX] = { 0 }, rows = table_rows(t);

	for (size_t c = 0; c < t->columns; c++) {
		w[c] = width(t->header[c]);
		for (size_t r = 0; r < rows; r++) {
			size_t x = width(cell(t, r, c));
			if (x > w[c])
				w[c] = x;
		}
	}
	print_row(t, f, w, 0, true);
	for (size_t r = 0; r < rows; r++)
		print_row(t, f, w, r, false);
	return ferror(f) ? -EIO : 0;
}

static void print_md_cell(FILE *f, const char *s)
{
	fputs(" ", f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputs(" ", f);
		else
			fputc(*s, f);
	}
	fputs(" |", f);
}

int table_print_markdown(const struct table *t, FILE *f)
{
	size_t rows = table_rows(t);

	fputs("|", f);
	for (size_t c = 0; c < t->columns; c++)
		print_md_cell(f, t->header[c]);
	fputs("\n|", f);
	for (size_t c = 0; c < t->columns; c++)
		fputs(t->align[c] == TABLE_RIGHT ? "---:|" : "---|", f);
	fputs("\n", f);
	for (size_t r = 0; r < rows; r++) {
		fputs("|", f);
		for (size_t c = 0; c < t->columns; c++)
			print_md_cell(f, cell(t, r, c));
		fputs("\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
