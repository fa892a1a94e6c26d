/* What happened to a region between two censuses.  One enum for the
 * scanner, which finds the events, and the trace export, which replays
 * them from an answer: both sit above common/ and neither may name the
 * other.  The names are the words of the events answer, the schema's
 * region_events.kind and the man pages. */
#pragma once

enum region_event_kind {
	REGION_APPEARED,
	REGION_DISAPPEARED,
	REGION_GREW,
	REGION_SHRANK,
	_REGION_EVENT_KIND_MAX
};

/* "appeared", "disappeared", "grew", "shrank"; "?" out of range. */
const char *region_event_kind_name(enum region_event_kind k);

/* The kind of one of those names, or -1 for another name. */
int region_event_kind_from_name(const char *name);
