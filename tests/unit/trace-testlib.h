/* Helpers shared by the trace analyzer's unit tests: replaying a text
 * trace (with ' for ") and reading the counters it left. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace-analyzer.h"
#include "trace-replay.h"

struct run {
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	int r;
};

/* Replays text (with ' for ") under o. */
static inline struct run *replay_with(const char *text, const struct trace_replay_options *o)
{
	struct run *run = calloc(1, sizeof(*run));
	char *json = strdup(text);
	assert_non_null(run);
	assert_non_null(json);
	for (char *c = json; *c; c++)
		if (*c == '\'')
			*c = '"';
	trace_analyzer_init(&run->a, o);
	trace_parser_init(&run->p);
	run->r = trace_replay_buffer(&run->a, &run->p, json, strlen(json), &run->err);
	free(json);
	return run;
}

static inline struct run *replay(const char *text)
{
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING, .track_sites = true };
	struct run *run = replay_with(text, &o);
	if (run->r != 0)
		fail_msg("replay failed at line %llu: %s", (unsigned long long)run->err.line, run->err.error.message);
	return run;
}

static inline void done(struct run *run)
{
	trace_parser_done(&run->p);
	trace_analyzer_done(&run->a);
	free(run);
}

static inline const struct trace_counters *scope(const struct run *run, const char *path)
{
	int64_t i = trace_scopes_find(&run->a.scopes, path, strlen(path));
	if (i < 0)
		fail_msg("no scope %s", path);
	return &run->a.scopes.v[i].counters;
}

static inline const struct trace_counters *site(const struct run *run, uint64_t address)
{
	const struct trace_site *s = hashtab_get(&run->a.sites, address);
	if (!s)
		fail_msg("no site 0x%llx", (unsigned long long)address);
	return &s->counters;
}
