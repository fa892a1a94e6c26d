/* Minified JSON written straight to a stream, fields in the order they are
 * written: the JSON Lines report must list its fields in a fixed order,
 * and numbers must stay exact 64-bit integers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_JSONW_DEPTH 4

struct trace_jsonw {
	FILE *f;
	int depth;
	bool first[TRACE_JSONW_DEPTH];
};

void trace_jsonw_begin(struct trace_jsonw *w, FILE *f);   /* { */
void trace_jsonw_end_line(struct trace_jsonw *w);         /* }\n */
void trace_jsonw_object(struct trace_jsonw *w, const char *key); /* "key":{ */
void trace_jsonw_array(struct trace_jsonw *w, const char *key);  /* "key":[ */
void trace_jsonw_close(struct trace_jsonw *w, char bracket);     /* } or ] */
void trace_jsonw_u64(struct trace_jsonw *w, const char *key, uint64_t v);
/* An optional number: null when absent. */
void trace_jsonw_opt_u64(struct trace_jsonw *w, const char *key, bool has, uint64_t v);
/* Strings are written by text_json_write: bytes that are not UTF-8 as
 * U+FFFD. */
void trace_jsonw_str(struct trace_jsonw *w, const char *key, const char *s, size_t len);
/* A NUL-terminated string, or null for NULL. */
void trace_jsonw_cstr(struct trace_jsonw *w, const char *key, const char *s);
/* An array element (key NULL) that is a string. */
void trace_jsonw_element(struct trace_jsonw *w, const char *s);
