/* The queries run on the worker thread (the .query of request-table.def's
 * entries): reads of the store (history, report, census, events,
 * processes, oom, cgroups, cgroup_history) and the census of a process the daemon does not watch.  Each
 * sees only its job: the request, who asks, and for "processes" a copy of
 * the watched processes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "census-json.h"
#include "census-read.h"
#include "census.h"
#include "control-internal.h"
#include "limits.h"
#include "macro.h"
#include "store-read.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

void control_query_free(void *userdata)
{
	struct control_query *q = userdata;
	if (!q)
		return;
	control_request_free(q->req);
	control_live_set_free(q->live);
	free(q->why);
	free(q);
}

/* Says in an answer why the platform gives it nothing to hold (why NULL:
 * nothing said). */
static int set_why(json_t *result, const char *why)
{
	if (!why || !json_is_object(result))
		return 0;
	return json_object_set_new(result, "why", json_string(why)) < 0 ? -ENOMEM : 0;
}

int control_set_filtered(json_t *result, int64_t only_uid, const char *only_owner)
{
	if (!json_is_object(result))
		return 0;
	if (!json_object_get(result, "filtered_to_uid") &&
	    json_object_set_new(result, "filtered_to_uid",
				only_uid >= 0 ? json_integer((json_int_t)only_uid) : json_null()) < 0)
		return -ENOMEM;
	if (only_owner && json_object_set_new(result, "filtered_to_owner", json_string(only_owner)) < 0)
		return -ENOMEM;
	return 0;
}

int control_query_processes(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	const struct control_live_set *live = q->live;
	json_auto_t *stored = NULL;
	json_t *merged = NULL;
	int r = 0;

	if (reader) {
		/* enough of the store's list for every watched process and the
		 * others asked for */
		size_t limit = req->all ? req->limit + live->n : RW_ANSWER_ROWS_MAX;
		if (limit > RW_ANSWER_ROWS_MAX)
			limit = RW_ANSWER_ROWS_MAX;
		r = store_read_processes(reader, q->only_uid, q->only_owner, req->all, req->sort, (unsigned)limit, &stored, &j->error);
		/* without "all", what the daemon watches is the answer: the
		 * store adds only the row ids and last censuses */
		if (r < 0 && (req->all || r == -ETIME || r == -EINTR || r == -ENOMEM))
			return r;
	} else if (req->all)
		return -EIO;

	const json_t *list = json_is_array(stored) ? stored : json_object_get(stored, "processes");
	struct control_processes_query pq = { .all = req->all, .sort = req->sort, .limit = req->limit };
	r = control_processes_merge(list, live->p, live->n, &pq, control_user_name, &merged);
	if (r < 0)
		return r;
	j->result = json_pack("{s:o, s:o}", "processes", merged, "filtered_to_uid",
			      q->only_uid >= 0 ? json_integer((json_int_t)q->only_uid) : json_null());
	return j->result ? control_set_filtered(j->result, q->only_uid, q->only_owner) : -ENOMEM;
}

int control_query_history(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	struct store_history_query h = {
		.sel = req->sel,
		.since = req->since,
		.until = req->until,
		.classes = req->classes,
		.n_classes = req->n_classes,
		.step_ms = req->step_ms,
		.limit = req->limit,
		.cursor = req->cursor,
	};
	int r = store_read_history(reader, &h, &j->result, &j->error);
	/* a list by name holds only the asker's processes: say so */
	if (r >= 0 && req->sel.name)
		r = control_set_filtered(j->result, q->only_uid, q->only_owner);
	return r;
}

int control_query_report(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	return store_read_report(reader, &q->req->sel, &j->result, &j->error);
}

int control_query_census(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	return store_read_census(reader, &q->req->sel, q->req->at, &j->result, &j->error);
}

int control_query_events(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	return store_read_events(reader, &req->sel, req->since, req->until, req->limit, req->cursor, &j->result,
				 &j->error);
}

int control_query_oom(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	struct store_oom_query o = {
		.since = req->since,
		.until = req->until,
		.cgroup = req->cgroup,
		.only_uid = q->only_uid,
		.only_owner = q->only_owner,
		.limit = req->limit,
	};
	int r = store_read_oom_kills(reader, &o, &j->result, &j->error);
	/* a user who sees only their own processes sees only their kills */
	if (r >= 0)
		r = control_set_filtered(j->result, q->only_uid, q->only_owner);
	return r < 0 ? r : set_why(j->result, q->why);
}

int control_query_cgroups(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	/* the kernel shows every group's files to every user; the sums of
	 * the processes in a group are of others' processes too */
	int r = store_read_cgroups(reader, RW_CGROUP_GROWTH_WINDOW_MS, q->only_uid < 0, &j->result, &j->error);
	return r < 0 ? r : set_why(j->result, q->why);
}

int control_query_cgroup_history(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	struct store_cgroup_history_query h = {
		.cgroup = req->cgroup,
		.unit = req->unit,
		.since = req->since,
		.until = req->until,
		.limit = req->limit,
		.processes_figures = q->only_uid < 0,
	};
	return store_read_cgroup_history(reader, &h, &j->result, &j->error);
}

int control_query_run(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_handlers *h = control_handlers_get(q->req->op);

	error_clear(&j->error);
	if (!h || !h->query)
		return error_set(&j->error, -EINVAL, "op %s has no query for the worker",
				 request_table_name(q->req->op));
	return h->query(j, reader);
}

/* Called by the scanner between reads: stops a scan whose client went
 * away or whose time is up. */
static int scan_progress(void *userdata, uint64_t bytes_read)
{
	const struct control_job *j = userdata;
	(void)bytes_read;
	if (control_job_cancelled(j))
		return -ECANCELED;
	if (now_monotonic_us() >= j->deadline_us)
		return -ETIME;
	return 0;
}

int control_query_scan(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	int pid = q->req->sel.pid;
	const struct census_read_scan o = {
		.proc_root = q->proc_root,
		.light = q->light,
		.evidence = q->evidence,
		.progress = scan_progress,
		.userdata = j,
	};
	struct error err = { 0 };
	_cleanup_(census_freep) struct census *c = NULL;
	(void)reader;

	int r = census_read_pid(pid, &o, &c, &err);
	if (r < 0) {
		if (r == -ETIME)
			error_set(&j->error, r, "the census of process %d took longer than %u s", pid,
				  (unsigned)(RW_SCAN_TIMEOUT_US / 1000000u));
		else
			error_set(&j->error, r, "%s", error_message_or_strerror(&err, r));
		/* a kernel thread: nothing to scan, which is the request's fault */
		return r == -EOPNOTSUPP ? -EINVAL : r;
	}
	/* the pid was checked before; it may since name another process */
	if (q->only_uid >= 0 && c->uid != q->only_uid &&
	    !(q->only_owner && c->platform == PLATFORM_WINDOWS && c->windows.owner[0] &&
	      strcasecmp(c->windows.owner, q->only_owner) == 0)) {
		return error_set(&j->error, -EACCES, "process %d (%s) belongs to uid %lld", pid,
				 c->comm ? c->comm : "?", (long long)c->uid);
	}
	j->result = census_to_json(c, false);
	return j->result ? 0 : -ENOMEM;
}
