/* Putting a paged answer back together.  History and events are answered
 * a page at a time (store-read-history.c, store-read-events.c say how a
 * page is cut); whoever follows "next" adds each later page to the first
 * with store_read_merge_page, which knows what a page repeats: every page
 * lists the instances again, and a census or mark at a page's edge may be
 * in both pages around it.  Pure: JSON in, JSON out, no database. */
#pragma once

#include <jansson.h>

/* Adds page, a later page of a paged answer (history, events), to into,
 * the first: "samples" and "events" are appended (no row is in two
 * pages), "instances", "censuses" and "marks" that into already holds
 * are not repeated (an instance by process_id, a census by census_id, a
 * mark by process_id, time and name), "next" becomes the page's.  into
 * takes references to page's entries (and to a list into lacked).
 * Returns the rows added (samples and events), or -ENOMEM. */
int store_read_merge_page(json_t *into, const json_t *page);
