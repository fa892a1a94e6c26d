/* The ops run on the worker thread: reads of the store (history, report,
 * census, events, processes) and the census of a process the daemon does
 * not watch.  Each sees only its job: the request, who asks, and for
 * "processes" a copy of the watched processes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census-json.h"
#include "census.h"
#include "control-internal.h"
#include "limits.h"
#include "macro.h"
#include "scan.h"
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
	free(q);
}

/* Says in the answer that a list holds only the asker's processes. */
static int set_filtered(json_t *result, int64_t only_uid)
{
	if (!json_is_object(result) || json_object_get(result, "filtered_to_uid"))
		return 0;
	return json_object_set_new(result, "filtered_to_uid",
				   only_uid >= 0 ? json_integer((json_int_t)only_uid) : json_null()) < 0
		       ? -ENOMEM
		       : 0;
}

static int processes(struct control_job *j, struct control_query *q, struct store_reader *reader)
{
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
		r = store_read_processes(reader, q->only_uid, req->all, req->sort, (unsigned)limit, &stored, &j->error);
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
	return j->result ? 0 : -ENOMEM;
}

int control_query_run(struct control_job *j, struct store_reader *reader)
{
	struct control_query *q = j->data;
	const struct control_request *req = q->req;
	struct error *err = &j->error;
	int r;

	error_clear(err);
	switch (req->op) {
	case CONTROL_OP_PROCESSES:
		return processes(j, q, reader);
	case CONTROL_OP_HISTORY: {
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
		r = store_read_history(reader, &h, &j->result, err);
		/* a list by name holds only the asker's processes: say so */
		if (r >= 0 && req->sel.name)
			r = set_filtered(j->result, q->only_uid);
		return r;
	}
	case CONTROL_OP_REPORT:
		return store_read_report(reader, &req->sel, &j->result, err);
	case CONTROL_OP_CENSUS:
		return store_read_census(reader, &req->sel, req->at, &j->result, err);
	case CONTROL_OP_EVENTS:
		return store_read_events(reader, &req->sel, req->since, req->until, req->limit, req->cursor, &j->result,
					 err);
	default:
		return error_set(err, -EINVAL, "op %s is not a store query", control_op_name(req->op));
	}
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
	struct scan_options o = {
		.proc_root = q->proc_root,
		.light = q->light,
		.no_evidence = !q->evidence,
		.progress = scan_progress,
		.userdata = j,
	};
	struct error err = { 0 };
	_cleanup_(census_freep) struct census *c = NULL;
	(void)reader;

	int r = scan_process(pid, &o, &c, &err);
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
	if (q->only_uid >= 0 && c->uid != q->only_uid) {
		return error_set(&j->error, -EACCES, "process %d (%s) belongs to uid %lld", pid,
				 c->comm ? c->comm : "?", (long long)c->uid);
	}
	j->result = census_to_json(c, false);
	return j->result ? 0 : -ENOMEM;
}
