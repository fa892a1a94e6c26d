/* A captured Windows region list: what VirtualQueryEx and the scanner's
 * reads found in one process, saved as JSON ("ramwatch-windows-regions"),
 * so that what only real Windows shows (the working sets of other
 * processes, heap lists, write-combined memory) can be kept and classified
 * anywhere.  The format is in ramwatch(1), WINDOWS. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "win-census.h"

#define WIN_CAPTURE_FORMAT "ramwatch-windows-regions"
#define WIN_CAPTURE_VERSION 1

struct strpool;

struct win_capture {
	struct win_region *regions;
	size_t n;
	struct win_process process;
	struct strpool *strings; /* every string of regions and process */
	/* the CPU time (kernel and user) of the thread that read the process
	 * (winscan_process reads in a thread of its own); 0 for a capture
	 * parsed from JSON, which does not carry it */
	uint64_t reader_cpu_us;
};

/* Parses len bytes of JSON.  Returns 0 with *ret (win_capture_free), or
 * -EBADMSG with err saying what is wrong (and where), -E2BIG past
 * RW_REGIONS_MAX regions, -ENOMEM. */
int win_capture_parse(const char *text, size_t len, struct win_capture **ret, struct error *err);
/* Reads and parses the capture at path ('-': standard input), at most
 * RW_CENSUS_FILE_MAX bytes.  Returns as win_capture_parse, with the
 * path in err's message. */
int win_capture_load_file(const char *path, struct win_capture **ret, struct error *err);
/* Accepts NULL, returns NULL. */
struct win_capture *win_capture_free(struct win_capture *c);

/* The capture of n regions and p as JSON (json_decref), NULL without memory. */
json_t *win_capture_to_json(const struct win_region *regions, size_t n, const struct win_process *p);
