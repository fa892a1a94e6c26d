/* A small streaming writer of minified JSON. */
#include "trace-jsonw.h"

#include <inttypes.h>
#include <string.h>

void trace_json_string(FILE *f, const char *s, size_t len)
{
	size_t plain = 0;

	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char buf[8];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c < 0x20) {
				snprintf(buf, sizeof(buf), "\\u%04x", c);
				esc = buf;
			}
		}
		if (!esc)
			continue;
		fwrite(s + plain, 1, i - plain, f);
		fputs(esc, f);
		plain = i + 1;
	}
	fwrite(s + plain, 1, len - plain, f);
	fputc('"', f);
}

static void key(struct trace_jsonw *w, const char *k)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (k) {
		trace_json_string(w->f, k, strlen(k));
		fputc(':', w->f);
	}
}

static void open_level(struct trace_jsonw *w, char bracket)
{
	fputc(bracket, w->f);
	if (w->depth + 1 < TRACE_JSONW_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

void trace_jsonw_begin(struct trace_jsonw *w, FILE *f)
{
	*w = (struct trace_jsonw){ .f = f, .depth = -1 };
	open_level(w, '{');
}

void trace_jsonw_end_line(struct trace_jsonw *w)
{
	fputs("}\n", w->f);
	w->depth = -1;
}

void trace_jsonw_object(struct trace_jsonw *w, const char *k)
{
	key(w, k);
	open_level(w, '{');
}

void trace_jsonw_array(struct trace_jsonw *w, const char *k)
{
	key(w, k);
	open_level(w, '[');
}

void trace_jsonw_close(struct trace_jsonw *w, char bracket)
{
	fputc(bracket, w->f);
	if (w->depth > 0)
		w->depth--;
}

void trace_jsonw_u64(struct trace_jsonw *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->f, "%" PRIu64, v);
}

void trace_jsonw_opt_u64(struct trace_jsonw *w, const char *k, bool has, uint64_t v)
{
	if (has)
		return trace_jsonw_u64(w, k, v);
	key(w, k);
	fputs("null", w->f);
}

void trace_jsonw_str(struct trace_jsonw *w, const char *k, const char *s, size_t len)
{
	key(w, k);
	trace_json_string(w->f, s, len);
}

void trace_jsonw_cstr(struct trace_jsonw *w, const char *k, const char *s)
{
	key(w, k);
	if (s)
		trace_json_string(w->f, s, strlen(s));
	else
		fputs("null", w->f);
}

void trace_jsonw_element(struct trace_jsonw *w, const char *s)
{
	key(w, NULL);
	trace_json_string(w->f, s, strlen(s));
}
