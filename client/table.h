/* Tables for people: cells added row by row, printed with aligned columns
 * (text) or as a Markdown table.  Cells are copied. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"

struct table;

enum table_align { TABLE_LEFT, TABLE_RIGHT };

/* Creates a table with n columns, named by the NULL-terminated list of
 * headers; a header starting with '>' is right-aligned (the '>' is not
 * printed).  Returns NULL when out of memory. */
struct table *table_new(const char *first_header, ...);
/* The same from an array of n headers.  Returns NULL when out of memory or
 * when n is above TABLE_COLUMNS_MAX. */
#define TABLE_COLUMNS_MAX 64
struct table *table_new_v(const char *const *headers, size_t n);
struct table *table_free(struct table *t);
DEFINE_CLEANUP(struct table *, table_free)

/* Adds a cell to the current row; a row is complete after n cells. */
int table_add(struct table *t, const char *cell);
int table_addf(struct table *t, const char *fmt, ...) _printf_(2, 3);

size_t table_rows(const struct table *t);

/* Prints with two spaces between columns, the header first.  A cell of the
 * last column is never padded.  Returns 0 or -errno. */
int table_print(const struct table *t, FILE *f);
/* Prints as a Markdown table ('|' in cells escaped). */
int table_print_markdown(const struct table *t, FILE *f);
