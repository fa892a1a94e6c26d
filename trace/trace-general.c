/* jansson-based parsing of an event line, with big numbers set aside. */
#include "trace-general.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_general_init(struct trace_general *g)
{
	*g = (struct trace_general){ 0 };
}

void trace_general_done(struct trace_general *g)
{
	free(g->text);
	free(g->bigs);
	json_decref(g->json);
	trace_general_init(g);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

enum number_form { NOT_A_NUMBER, INTEGER, NEGATIVE_INTEGER, FRACTIONAL };

/* What the token [s, s+n) is by JSON's number grammar. */
static enum number_form number_form(const char *s, size_t n)
{
	size_t i = 0, start;
	bool negative = false, fractional = false;

	if (i < n && s[i] == '-')
		negative = true, i++;
	if (i >= n)
		return NOT_A_NUMBER;
	if (s[i] == '0') {
		i++;
	} else {
		for (start = i; i < n && is_digit(s[i]); i++)
			;
		if (i == start)
			return NOT_A_NUMBER;
	}
	if (i < n && s[i] == '.') {
		fractional = true;
		for (start = ++i; i < n && is_digit(s[i]); i++)
			;
		if (i == start)
			return NOT_A_NUMBER;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		fractional = true;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (start = i; i < n && is_digit(s[i]); i++)
			;
		if (i == start)
			return NOT_A_NUMBER;
	}
	if (i != n)
		return NOT_A_NUMBER;
	if (fractional)
		return FRACTIONAL;
	return negative ? NEGATIVE_INTEGER : INTEGER;
}

static int reserve(struct trace_general *g, size_t len)
{
	if (g->text_size < len + 1) {
		char *t = realloc(g->text, len + 1);
		if (!t)
			return -ENOMEM;
		g->text = t;
		g->text_size = len + 1;
	}
	/* a number takes at least one byte, and the line holds fewer numbers
	 * than bytes */
	if (g->bigs_size < len + 1) {
		struct trace_big *b = realloc(g->bigs, (len + 1) * sizeof(*b));
		if (!b)
			return -ENOMEM;
		g->bigs = b;
		g->bigs_size = len + 1;
	}
	return 0;
}

/* Copies line into g->text with its numbers rewritten (see the header);
 * returns the new length, never longer than the line: a placeholder is at
 * most 8 bytes and replaces 19 digits or more, "-1" replaces a negative
 * integer, "0.5" a fraction of at least 3 bytes. */
static size_t rewrite_numbers(struct trace_general *g, const char *line, size_t len, size_t *ret_bigs)
{
	size_t i = 0, o = 0, n_bigs = 0;

	while (i < len) {
		char c = line[i];
		if (c == '"') {
			g->text[o++] = line[i++];
			while (i < len && line[i] != '"') {
				if (line[i] == '\\' && i + 1 < len)
					g->text[o++] = line[i++];
				g->text[o++] = line[i++];
			}
			if (i < len)
				g->text[o++] = line[i++];
			continue;
		}
		if (c != '-' && !is_digit(c)) {
			g->text[o++] = line[i++];
			continue;
		}
		size_t j = i;
		while (j < len && (is_digit(line[j]) || line[j] == '-' || line[j] == '+' || line[j] == '.' ||
				   line[j] == 'e' || line[j] == 'E'))
			j++;
		const char *tok = line + i;
		size_t n = j - i;
		uint64_t v = 0;
		bool too_large = false;
		switch (number_form(tok, n)) {
		case INTEGER:
			for (size_t k = 0; k < n; k++) {
				unsigned d = (unsigned)(tok[k] - '0');
				if (v > (UINT64_MAX - d) / 10) {
					too_large = true;
					break;
				}
				v = v * 10 + d;
			}
			if (!too_large && v <= INT64_MAX) {
				memcpy(g->text + o, tok, n);
				o += n;
				break;
			}
			g->bigs[n_bigs] = (struct trace_big){ .value = v, .too_large = too_large };
			o += (size_t)sprintf(g->text + o, "%" PRId64, -2 - (int64_t)n_bigs);
			n_bigs++;
			break;
		case NEGATIVE_INTEGER:
			memcpy(g->text + o, "-1", 2);
			o += 2;
			break;
		case FRACTIONAL:
			memcpy(g->text + o, "0.5", 3);
			o += 3;
			break;
		default: /* not a number: jansson says what is wrong */
			memcpy(g->text + o, tok, n);
			o += n;
		}
		i = j;
	}
	g->text[o] = '\0';
	*ret_bigs = n_bigs;
	return o;
}

static bool numeric(enum trace_field f)
{
	enum trace_field_type t = trace_event_field_type(f);
	return t == TRACE_TYPE_U64 || t == TRACE_TYPE_U32 || t == TRACE_TYPE_VERSION;
}

static int set_integer(const struct trace_general *g, struct trace_event *e, enum trace_field f, json_int_t v,
		       size_t n_bigs, struct error *err)
{
	if (!numeric(f) || v == -1)
		return trace_event_set_wrong_type(f, err);
	if (v >= 0)
		return trace_event_set_u64(e, f, (uint64_t)v, err);
	/* a placeholder: -2 - its index in the side table */
	uint64_t index = (uint64_t)(-(v + 2));
	if (index >= n_bigs)
		return trace_event_set_wrong_type(f, err);
	if (g->bigs[index].too_large)
		return trace_event_set_too_large(f, err);
	return trace_event_set_u64(e, f, g->bigs[index].value, err);
}

/* A "frames" array: each element an unsigned integer, copied into
 * g->frames (the event borrows them until the next line). */
static int set_frames(struct trace_general *g, struct trace_event *e, enum trace_field f, json_t *array,
		      size_t n_bigs, struct error *err)
{
	size_t n = json_array_size(array), i;
	json_t *v;

	if (trace_event_field_type(f) != TRACE_TYPE_FRAMES)
		return trace_event_set_wrong_type(f, err);
	if (n > RW_TRACE_STACK_FRAMES_MAX)
		return trace_event_set_frames(e, f, NULL, n, err); /* refused for its length */
	json_array_foreach(array, i, v) {
		json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
		uint64_t index = x < -1 ? (uint64_t)(-(x + 2)) : 0;
		if (x >= 0)
			g->frames[i] = (uint64_t)x;
		else if (x < -1 && index < n_bigs && !g->bigs[index].too_large)
			g->frames[i] = g->bigs[index].value;
		else
			return trace_event_set_wrong_type(f, err);
	}
	return trace_event_set_frames(e, f, g->frames, n, err);
}

int trace_general_parse(struct trace_general *g, const char *line, size_t len, struct trace_event *e,
			struct error *err)
{
	json_error_t error;
	const char *key;
	json_t *value;
	int r;

	trace_event_init(e);
	json_decref(g->json);
	g->json = NULL;
	if ((r = reserve(g, len)) < 0)
		return r;
	size_t n_bigs;
	size_t n = rewrite_numbers(g, line, len, &n_bigs);

	/* duplicates are refused: which of two values counts would be a
	 * guess; NUL is allowed in strings, as JSON allows it */
	g->json = json_loadb(g->text, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &error);
	if (!g->json)
		return error_set(err, -EINVAL, "not valid JSON: %s", error.text);
	if (!json_is_object(g->json))
		return error_set(err, -EINVAL, "an event must be a JSON object");
	json_object_foreach(g->json, key, value) {
		int f = trace_event_field(key, strlen(key));
		if (f < 0)
			continue;
		switch (json_typeof(value)) {
		case JSON_INTEGER:
			r = set_integer(g, e, (enum trace_field)f, json_integer_value(value), n_bigs, err);
			break;
		case JSON_STRING:
			r = trace_event_set_string(e, (enum trace_field)f, json_string_value(value),
						   json_string_length(value), err);
			break;
		case JSON_TRUE:
		case JSON_FALSE:
			r = trace_event_set_bool(e, (enum trace_field)f, json_is_true(value), err);
			break;
		case JSON_ARRAY: r = set_frames(g, e, (enum trace_field)f, value, n_bigs, err); break;
		default:
			r = trace_event_set_wrong_type((enum trace_field)f, err);
		}
		if (r < 0)
			return r;
	}
	return trace_event_finish(e, err);
}
