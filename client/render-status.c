/* The status answer for people. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "macro.h"
#include "table.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

static void row(FILE *f, const char *name, const char *fmt, ...) _printf_(3, 4);

static void row(FILE *f, const char *name, const char *fmt, ...)
{
	va_list ap;
	fprintf(f, "%-14s ", name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* A damaged database the daemon replaced: where the old file is, and
 * what of it the new one holds. */
static void corruption_row(FILE *f, const json_t *k)
{
	const char *moved_to = answer_str(k, "moved_to"), *what = answer_str(k, "what");
	const json_t *kept = json_object_get(k, "kept");
	int64_t found_at = 0, processes = 0, censuses = 0, count = 0;
	char when[TIMEPARSE_FORMAT_MAX] = "-";

	if (!json_is_object(k))
		return;
	answer_int(k, "count", &count);
	if (answer_int(k, "found_at", &found_at))
		timeparse_format_local(when, found_at);
	answer_int(kept, "processes", &processes);
	answer_int(kept, "censuses", &censuses);
	row(f, "", "found damaged at %s (%s): moved to %s; the new one kept %" PRId64 " processes, %" PRId64
		" censuses%s", when, what ? what : "-", moved_to ? moved_to : "-", processes, censuses,
	    count > 1 ? " (not the first time)" : "");
}

static void database_row(FILE *f, const json_t *db)
{
	char size[FORMAT_BYTES_MAX];
	const char *path = answer_str(db, "path"), *error = answer_str(db, "error");
	int64_t schema, queued = 0, dropped = 0;
	const json_t *writing = json_object_get(db, "writing");

	answer_int(db, "queued_rows", &queued);
	answer_int(db, "dropped_rows", &dropped);
	fprintf(f, "%-14s %s, %s", "database", path ? path : "-", answer_bytes(size, db, "size"));
	if (answer_int(db, "schema_version", &schema))
		fprintf(f, ", schema %" PRId64, schema);
	if (json_is_boolean(writing))
		fprintf(f, ", %s", json_is_true(writing) ? "writing" : "not writing");
	if (queued || dropped)
		fprintf(f, " (%" PRId64 " rows waiting, %" PRId64 " dropped)", queued, dropped);
	fputc('\n', f);
	if (error)
		row(f, "", "store error: %s", error);
	corruption_row(f, json_object_get(db, "corruption"));
}

static void censuses_row(FILE *f, const json_t *status)
{
	static const char *const kinds[] = { "ok", "exited", "denied", "error", "light" };
	const json_t *per_minute = json_object_get(status, "censuses_per_minute");
	const json_t *counts = json_object_get(status, "censuses");
	int64_t v;

	fprintf(f, "%-14s ", "censuses");
	if (json_is_number(per_minute))
		fprintf(f, "%.1f per minute", json_number_value(per_minute));
	else
		fputs("-", f);
	if (json_is_object(counts)) {
		const char *sep = "; ";
		for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
			if (answer_int(counts, kinds[i], &v)) {
				fprintf(f, "%s%" PRId64 " %s", sep, v, kinds[i]);
				sep = ", ";
			}
	}
	fputc('\n', f);
}

static void budget_row(FILE *f, const json_t *budget)
{
	const json_t *share = json_object_get(budget, "share"), *used = json_object_get(budget, "used");
	fprintf(f, "%-14s ", "budget");
	if (json_is_number(used))
		fprintf(f, "%.2f%% of one CPU used", 100.0 * json_number_value(used));
	else
		fputs("- used", f);
	if (json_is_number(share))
		fprintf(f, " of %.2f%% allowed (ScanBudget=)", 100.0 * json_number_value(share));
	fputc('\n', f);
}

/* "bpf, kmsg, counter" active; each that is not, with why. */
/* "discovery  bpf events" and, where a better source is off, why. */
static void discovery_row(FILE *f, const json_t *d)
{
	static const struct {
		const char *source, *words;
	} sources[] = {
		{ "bpf", "events from the process watch (BPF)" },
		{ "connector", "events from the proc connector" },
		{ "listing", "lists every process each DiscoverInterval" },
		{ "snapshot", "a snapshot of every process each DiscoverInterval" },
	};
	const char *source = answer_str(d, "source"), *why = answer_str(d, "why"), *words = NULL;
	int64_t lost = 0;

	if (!json_is_object(d) || !source)
		return;
	for (size_t i = 0; i < ELEMENTSOF(sources); i++)
		if (streq(sources[i].source, source))
			words = sources[i].words;
	answer_int(d, "lost", &lost);
	if (lost > 0)
		row(f, "discovery", "%s; events lost %" PRId64 " time%s", words ? words : source, lost, lost == 1 ? "" : "s");
	else
		row(f, "discovery", "%s", words ? words : source);
	if (why)
		row(f, "", "%s", why);
}

static void oom_row(FILE *f, const json_t *oom)
{
	static const char *const names[] = { "bpf", "kmsg", "counter" };
	const json_t *sources = json_object_get(oom, "sources"), *kills = json_object_get(oom, "kills");
	const char *sep = "";

	if (!json_is_object(oom))
		return;
	fprintf(f, "%-14s ", "OOM kills");
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (json_is_true(json_object_get(json_object_get(sources, names[i]), "active"))) {
			fprintf(f, "%s%s", sep, names[i]);
			sep = ", ";
		}
	fputs(*sep ? " active" : "no source active", f);
	if (json_is_object(kills)) {
		int64_t total = 0, v;
		const char *key;
		const json_t *value;
		json_object_foreach((json_t *)kills, key, value)
			if (answer_int(kills, key, &v))
				total += v;
		fprintf(f, "; %" PRId64 " since the start", total);
	}
	fputc('\n', f);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		const json_t *src = json_object_get(sources, names[i]);
		const char *why = answer_str(src, "why");
		if (json_is_false(json_object_get(src, "active")))
			row(f, "", "%s off: %s", names[i], why ? why : "-");
	}
}

static void cgroups_row(FILE *f, const json_t *cg)
{
	const char *why = answer_str(cg, "why");
	const json_t *near = json_object_get(cg, "near_limit");
	int64_t version, groups = 0, thresholds = 0, polled = 0;

	if (!json_is_object(cg))
		return;
	if (!answer_int(cg, "version", &version)) {
		row(f, "cgroups", "not followed: %s", why ? why : "-");
		return;
	}
	answer_int(cg, "groups", &groups);
	answer_int(near, "thresholds", &thresholds);
	answer_int(near, "polled", &polled);
	row(f, "cgroups", "v%" PRId64 ", %" PRId64 " group%s of watched processes; %" PRId64
		" limit%s watched through thresholds, %" PRId64 " polled", version, groups, groups == 1 ? "" : "s",
	    thresholds, thresholds == 1 ? "" : "s", polled);
}

int render_status(const json_t *status, FILE *f)
{
	char span[TIMEPARSE_FORMAT_MAX], when[TIMEPARSE_FORMAT_MAX];
	const char *version = answer_str(status, "version"), *config = answer_str(status, "config");
	const json_t *errors = json_object_get(status, "last_errors"), *e;
	int64_t pid, uptime, watched, deferred;
	size_t i;

	fprintf(f, "ramwatchd %s", version ? version : "(version unknown)");
	if (answer_int(status, "pid", &pid))
		fprintf(f, " (pid %" PRId64 ")", pid);
	if (answer_int(status, "uptime_ms", &uptime))
		fprintf(f, ", up %s", timeparse_format_span(span, uptime));
	fputc('\n', f);
	row(f, "configuration", "%s", config ? config : "(none: the defaults)");
	database_row(f, json_object_get(status, "database"));
	if (answer_int(status, "watched", &watched))
		row(f, "watched", "%" PRId64 " process%s", watched, watched == 1 ? "" : "es");
	censuses_row(f, status);
	budget_row(f, json_object_get(status, "budget"));
	if (answer_int(status, "deferred", &deferred))
		row(f, "deferred", "%" PRId64 " census%s waiting for the budget", deferred,
		    deferred == 1 ? "" : "es");
	discovery_row(f, json_object_get(status, "discovery"));
	oom_row(f, json_object_get(status, "oom"));
	cgroups_row(f, json_object_get(status, "cgroups"));
	if (!json_is_array(errors) || json_array_size(errors) == 0) {
		row(f, "last errors", "none");
	} else {
		row(f, "last errors", "%zu", json_array_size(errors));
		json_array_foreach(errors, i, e) {
			const char *message = answer_str(e, "message");
			fprintf(f, "  %s  %s\n", answer_time(when, e, "time"), message ? message : "?");
		}
	}
	return ferror(f) ? -EIO : 0;
}
