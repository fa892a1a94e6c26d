/* ramwatch top's state and its asking of the daemon: each refresh asks
 * for the status (the machine's line), the processes, and for at most
 * TOP_HISTORY_MAX of them their sparkline's window of history, the
 * window's first row (growth) and, when their last census changed, its
 * classes; in the detail view, the picked process's marks over its life.
 * All on one connection, opened again when it breaks; what failed is put
 * in the message line.  cmd-top.c reads the keys and draws. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limits.h"
#include "top-layout.h"
#include "top-model.h"

enum input { INPUT_NONE, INPUT_NAME, INPUT_USER, INPUT_MARK };

struct top {
	const char *socket;
	struct control_client *c;
	int64_t interval_ms, window_ms;

	struct top_row *rows;
	size_t n, *order, n_order;
	/* the list's lines and groups (top_group_order): 2 * n + 1 and n + 1
	 * entries, as order is n + 1 */
	struct top_line *lines;
	struct top_group *groups;
	int selected_pid; /* kept across refreshes: the order changes */
	json_t *detail;   /* history of the picked process (detail view) */
	/* what detail was read for: it is read again for another process, or
	 * when the process has a new census (every mark brings one) */
	int64_t detail_process_id, detail_census_id;

	struct top_view v;
	char name_filter[RW_MARK_NAME_MAX + 1], user_filter[RW_MARK_NAME_MAX + 1];
	char system_line[256], message[1200], prompt[1400];
	enum input input;
	char typed[RW_MARK_NAME_MAX + 1];
	bool refresh_failed; /* the message says why: cleared when a refresh works again */
};

/* One request on the connection, connecting first when there is none.
 * Returns 0 with *ret, or a negative errno with the reason in the
 * message line (and the connection dropped when it broke). */

/* Reads everything the screen shows.  Returns 0, or a negative errno with
 * the reason in t->message (the rows of the last refresh stay). */
int top_refresh(struct top *t);
/* Orders the rows by the view's key and filters, grouped as the view
 * says; the picked process stays picked where it still passes them. */
void top_reorder(struct top *t);
/* The position in the order of the first process on the list's lines
 * from line (t->n_order when none is). */
size_t top_first_shown(const struct top *t, size_t line);
/* The picked process, or NULL. */
const struct top_row *top_picked(const struct top *t);
/* A census of the picked process now (the scan op), and a mark on it;
 * what happened goes into t->message. */
void top_take_census(struct top *t);
void top_set_mark(struct top *t, const char *name);
