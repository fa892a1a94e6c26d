/* A small streaming writer of minified JSON. */
#include "trace-jsonw.h"

#include <inttypes.h>
#include <string.h>

#include "text.h"

static void key(struct trace_jsonw *w, const char *k)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (k) {
		text_json_write(w->f, k, strlen(k));
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
	text_json_write(w->f, s, len);
}

void trace_jsonw_cstr(struct trace_jsonw *w, const char *k, const char *s)
{
	key(w, k);
	if (s)
		text_json_write(w->f, s, strlen(s));
	else
		fputs("null", w->f);
}

void trace_jsonw_element(struct trace_jsonw *w, const char *s)
{
	key(w, NULL);
	text_json_write(w->f, s, strlen(s));
}
