/* The daemon's status in words (status-line.h): pure, from a snapshot. */
#include "status-line.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct status_rate_point status_rate_point(const struct core_status *st, uint64_t now)
{
	struct status_rate_point p = { .at_us = now, .cpu_us = st->census.census_cpu_us };

	for (int k = 0; k < _CENSUS_STATUS_MAX; k++)
		p.censuses += st->census.censuses[k];
	return p;
}

int status_line_format(const struct core_status *st, uint64_t now, struct status_rate_point *since, char *buf,
		     size_t size)
{
	struct status_rate_point p = status_rate_point(st, now);
	const struct writer_stats *ws = &st->writer;

	double minutes = (double)(now - since->at_us) / 60e6;
	double per_minute = minutes > 0 ? (double)(p.censuses - since->censuses) / minutes : 0;
	double used = now > since->at_us ? (double)(p.cpu_us - since->cpu_us) / (double)(now - since->at_us) : 0;
	*since = p;
	return snprintf(buf, size,
			"watching %u processes; %.1f censuses/min; census budget %.2f%% used of %.2f%%; %" PRIu64
			" deferred; store %s%s",
			st->watched, per_minute, used * 100, st->scan_budget * 100, st->census.deferred,
			ws->error ? "failing: " : "ok",
			ws->error ? (ws->message[0] ? ws->message : strerror(-ws->error)) : "");
}
