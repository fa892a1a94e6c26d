/* ramwatch top's asking of the daemon (top-ask.h). */
#include "top-ask.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-client.h"
#include "macro.h"
#include "render-answer.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

static int call(struct top *t, json_t *request, uint64_t wait_us, json_t **ret)
{
	struct control_error err = { 0 };
	int r;

	if (!request)
		return -ENOMEM;
	if (!t->c && (r = control_client_connect(control_client_socket_path(t->socket), &t->c, &err)) < 0)
		goto fail;
	r = control_client_call(t->c, request, wait_us, ret, &err);
	if (r >= 0)
		return json_decref(request), 0;
	if (r != -EREMOTEIO) /* the daemon's own refusal keeps the connection */
		t->c = control_client_close(t->c);
fail:
	json_decref(request);
	snprintf(t->message, sizeof(t->message), "%s", err.error.message);
	return r;
}

static void fetch_history(struct top *t, struct top_row *r, int64_t now)
{
	int64_t step = t->window_ms / TOP_SPARK_POINTS, since = now - step * TOP_SPARK_POINTS;
	json_t *h = NULL;

	if (r->process_id <= 0)
		return;
	if (call(t, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "op", "history", "process_id", (json_int_t)r->process_id,
			      "since", (json_int_t)since, "until", (json_int_t)now, "step_ms", (json_int_t)step, "limit",
			      (json_int_t)(TOP_SPARK_POINTS + 2)),
		 CONTROL_WAIT_US, &h) < 0)
		return;
	top_row_take_history(r, h, since, step);
	json_decref(h);
	/* the window's first row: the buckets give each its last value */
	if (call(t, json_pack("{s:s, s:I, s:I, s:I, s:I}", "op", "history", "process_id", (json_int_t)r->process_id,
			      "since", (json_int_t)since, "until", (json_int_t)now, "limit", 1),
		 CONTROL_WAIT_US, &h) >= 0) {
		top_row_take_start(r, h);
		json_decref(h);
	}
	/* the classes of a new ok census: the history of its instant holds it */
	if (r->census_id && r->census_id != r->classes_census_id && streq(r->census_status, "ok") &&
	    call(t, json_pack("{s:s, s:I, s:I, s:I, s:I}", "op", "history", "process_id", (json_int_t)r->process_id,
			      "since", (json_int_t)r->census_time, "until", (json_int_t)r->census_time, "limit", 1),
		 CONTROL_WAIT_US, &h) >= 0) {
		(void)top_row_take_census(r, h);
		json_decref(h);
	}
}

void top_reorder(struct top *t)
{
	t->n_order = top_order(t->rows, t->n, t->v.sort, t->name_filter, t->user_filter, t->order);
	t->v.lines = t->lines;
	t->v.groups = t->groups;
	/* out of memory: a line per process, ungrouped */
	(void)top_group_order(t->rows, t->order, t->n_order, t->v.by, t->v.sort, t->groups, &t->v.n_groups, t->lines,
			      &t->v.n_lines);
	t->v.selected = 0;
	for (size_t i = 0; i < t->n_order; i++)
		if (t->rows[t->order[i]].pid == t->selected_pid)
			t->v.selected = i;
	if (t->n_order)
		t->selected_pid = t->rows[t->order[t->v.selected]].pid;
}

static void fetch_detail(struct top *t, int64_t now)
{
	json_t *h = NULL;

	if (!t->v.detail || t->v.selected >= t->n_order) {
		json_decref(t->detail);
		t->detail = NULL;
		return;
	}
	const struct top_row *r = &t->rows[t->order[t->v.selected]];
	/* the marks of a whole life are not read again at every refresh */
	if (t->detail && t->detail_process_id == r->process_id && t->detail_census_id == r->census_id)
		return;
	json_decref(t->detail);
	t->detail = NULL;
	t->detail_process_id = r->process_id;
	t->detail_census_id = r->census_id;
	int64_t since = r->first_seen >= 0 && r->first_seen <= now ? r->first_seen : now - 3600 * 1000;
	/* one bucket for the samples: the marks are what is wanted */
	if (call(t, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "op", "history", "process_id", (json_int_t)r->process_id,
			      "since", (json_int_t)since, "until", (json_int_t)now, "step_ms",
			      (json_int_t)(now - since + 1), "limit", 2),
		 CONTROL_WAIT_US, &h) >= 0)
		t->detail = h;
}

int top_refresh(struct top *t)
{
	_cleanup_(json_decrefp) json_t *status = NULL, *procs = NULL;
	_cleanup_free_ size_t *pick = NULL;
	struct top_row *rows = NULL;
	size_t n = 0, m;
	int64_t now = now_realtime_ms(), uid;
	bool was_failing = t->refresh_failed;
	int r;

	t->refresh_failed = true;
	if ((r = call(t, json_pack("{s:s}", "op", "status"), CONTROL_WAIT_US, &status)) < 0)
		return r;
	if (was_failing)
		t->message[0] = '\0';
	(void)top_system_line(status, t->system_line, sizeof(t->system_line));
	if ((r = call(t, json_pack("{s:s, s:s}", "op", "processes", "sort", "private"), CONTROL_WAIT_US, &procs)) < 0)
		return r;
	t->v.only_uid = answer_int(procs, "filtered_to_uid", &uid) ? uid : -1;
	if ((r = top_rows_parse(procs, &rows, &n)) < 0) {
		snprintf(t->message, sizeof(t->message), "ramwatchd sent a processes answer this client cannot read");
		return r;
	}
	size_t *order = calloc(n + 1, sizeof(*order));
	struct top_line *lines = calloc(2 * n + 1, sizeof(*lines));
	struct top_group *groups = calloc(n + 1, sizeof(*groups));
	if (!order || !lines || !groups || !(pick = calloc(n + 1, sizeof(*pick)))) {
		free(rows);
		free(order);
		free(lines);
		free(groups);
		return -ENOMEM;
	}
	top_rows_carry(rows, n, t->rows, t->n);
	free(t->rows);
	free(t->order);
	free(t->lines);
	free(t->groups);
	t->rows = rows;
	t->n = n;
	t->order = order;
	t->lines = lines;
	t->groups = groups;
	top_reorder(t);
	/* those on screen first, from the first shown */
	size_t first = top_first_shown(t, t->v.first);
	if (first >= t->n_order)
		first = 0;
	m = top_history_pick(t->rows, t->n, t->order + first, t->n_order - first, pick, TOP_HISTORY_MAX);
	for (size_t i = 0; i < m; i++)
		fetch_history(t, &t->rows[pick[i]], now);
	top_reorder(t);
	fetch_detail(t, now);
	t->refresh_failed = false;
	return 0;
}

size_t top_first_shown(const struct top *t, size_t line)
{
	for (size_t i = line; i < t->v.n_lines; i++)
		if (!t->lines[i].header)
			return t->lines[i].at;
	return t->n_order;
}

const struct top_row *top_picked(const struct top *t)
{
	return t->v.selected < t->n_order ? &t->rows[t->order[t->v.selected]] : NULL;
}

void top_take_census(struct top *t)
{
	const struct top_row *r = top_picked(t);
	json_t *res = NULL;
	char size[FORMAT_BYTES_MAX];
	int pid;

	if (!r)
		return;
	pid = r->pid;
	if (call(t, json_pack("{s:s, s:i}", "op", "scan", "pid", pid), CONTROL_SCAN_WAIT_US, &res) < 0)
		return;
	const json_t *totals = json_object_get(res, "totals");
	snprintf(t->message, sizeof(t->message), "census of pid %d taken: %s private in %zu classes", pid,
		 answer_bytes(size, totals, "private"), json_array_size(json_object_get(res, "classes")));
	json_decref(res);
}

void top_set_mark(struct top *t, const char *name)
{
	const struct top_row *r = top_picked(t);
	char when[TIMEPARSE_FORMAT_MAX];
	json_t *res = NULL, *text;
	int64_t time;

	if (!r)
		return;
	if (!name[0] || !(text = json_string(name))) {
		snprintf(t->message, sizeof(t->message), "a mark's name is 1 to %u bytes of UTF-8 text", RW_MARK_NAME_MAX);
		return;
	}
	json_t *req = json_pack("{s:s, s:i, s:o}", "op", "mark", "pid", r->pid, "name", text);
	int pid = r->pid;
	if (call(t, req, CONTROL_WAIT_US, &res) < 0)
		return;
	_cleanup_free_ char *shown = text_visible(name, strlen(name));
	snprintf(t->message, sizeof(t->message), "mark '%s' set on pid %d at %s", shown ? shown : "?", pid,
		 answer_int(res, "time", &time) ? timeparse_format_local(when, time) : "?");
	json_decref(res);
}
