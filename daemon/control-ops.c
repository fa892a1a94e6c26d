/* The ops, on the loop's side, and their dispatch: each request's handlers
 * are those its entry in request-table.def names.  Status, mark and the
 * scan of a watched process are answered from what the daemon's core
 * interface (core-interface.h) tells; the others become jobs for the
 * worker (control-queries.c), with what they need of the daemon copied
 * into them.
 *
 * Access is checked here first, before anything is read for the asker:
 * a watched process's owner is the uid the daemon recorded when it began
 * following it; another process's is the account the system tells
 * (control-owner.h: the real uid of its status file on Linux, its token's
 * user SID on Windows). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "census-json.h"
#include "census.h"
#include "control-internal.h"
#include "control-owner.h"
#include "limits.h"
#include "log.h"
#include "util.h"

/* Rates in "status" are over at least this long (when the daemon has run
 * that long). */
#define RATE_WINDOW_US (60u * 1000u * 1000u)

static json_t *unref_json(json_t *j)
{
	json_decref(j);
	return NULL;
}

static void deny(struct control_conn *c, int pid, const char *comm, int64_t owner)
{
	char name[64], message[512];
	const char *owner_name = owner >= 0 ? control_user_name((uid_t)owner, name, sizeof(name)) : NULL;
	control_denied_message(message, sizeof(message), pid, comm, owner, owner_name, c->peer.uid);
	control_conn_error(c, CONTROL_DENIED, message);
}

/* Refuses a watched process that is another's: its uid's, on Windows its
 * account's. */
static void deny_watched(struct control_conn *c, const struct core_process *t)
{
	char message[512], peer[CONTROL_ACCOUNT_TEXT_MAX];

	if (t->uid >= 0 || !c->peer.sid[0]) {
		deny(c, t->pid, t->comm, t->uid);
		return;
	}
	control_denied_account_message(message, sizeof(message), t->pid, t->comm,
				       t->owner ? t->owner : "no known account",
				       control_peer_account(&c->peer, peer, sizeof(peer)));
	control_conn_error(c, CONTROL_DENIED, message);
}

/* Answers when a process the daemon does not watch cannot be looked at:
 * it does not exist, it is another's, or its owner is unreadable.
 * Returns true when it answered. */
static bool refuse_unwatched(struct control_conn *c, int pid, struct control_owner *ret)
{
	int r = control_owner_read(c->server->root_fd, pid, ret);
	if (r == -ENOENT) {
		control_conn_errorf(c, CONTROL_NOT_FOUND, "no process %d", pid);
		return true;
	}
	if (r < 0) {
		control_conn_errorf(c, CONTROL_INTERNAL, "cannot read the owner of process %d: %s", pid, strerror(-r));
		return true;
	}
	if (!control_peer_may_see_account(&c->peer, ret->uid, ret->sid[0] ? ret->sid : NULL)) {
		if (ret->sid[0]) {
			char message[512], peer[CONTROL_ACCOUNT_TEXT_MAX];
			control_denied_account_message(message, sizeof(message), pid, ret->name[0] ? ret->name : NULL,
						       ret->sid, control_peer_account(&c->peer, peer, sizeof(peer)));
			control_conn_error(c, CONTROL_DENIED, message);
		} else
			deny(c, pid, ret->name[0] ? ret->name : NULL, ret->uid);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------ status */

static json_t *last_errors(const struct control_peer *peer)
{
	struct log_recent_entry e[LOG_RECENT_MAX];
	json_t *a = json_array();
	/* what the daemon logged may name any process: not for everyone */
	size_t n = a && peer->privileged ? log_recent(e, ELEMENTSOF(e)) : 0;

	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(a, json_pack("{s:I, s:s, s:o}", "time", (json_int_t)e[i].time_ms, "level",
						       log_level_to_string(e[i].level), "message",
						       control_json_string(e[i].message))) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The last damaged database the daemon found and replaced, or null. */
static json_t *corruption_json(const struct core_status *st)
{
	if (st->corruptions == 0 || !st->corruption_moved_to)
		return json_null();
	return json_pack("{s:I, s:I, s:o, s:o, s:{s:I, s:I}}", "count", (json_int_t)st->corruptions, "found_at",
			 (json_int_t)st->corruption_found_at, "moved_to", control_json_string(st->corruption_moved_to),
			 "what", control_json_string(st->corruption_what ? st->corruption_what : ""), "kept",
			 "processes", (json_int_t)st->corruption_kept_processes, "censuses",
			 (json_int_t)st->corruption_kept_censuses);
}

/* The machine's memory as the daemon read it for this answer, or null. */
static json_t *system_json(const struct core_status *st)
{
	const struct store_system *x = &st->system;

	if (!st->have_system)
		return json_null();
	json_t *pressure = x->have_pressure ? json_pack("{s:f, s:f, s:f, s:f}", "some_avg10", x->some_avg10, "some_avg60",
							x->some_avg60, "full_avg10", x->full_avg10, "full_avg60",
							x->full_avg60)
					    : json_null();
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "time", (json_int_t)x->time, "mem_total",
			 (json_int_t)x->mem_total, "mem_available", (json_int_t)x->mem_available, "swap_total",
			 (json_int_t)x->swap_total, "swap_free", (json_int_t)x->swap_free, "pressure", pressure);
}

/* One OOM source: whether it is active, and why not. */
static json_t *source_json(bool active, const char *why)
{
	return json_pack("{s:b, s:o}", "active", active, "why", active || !why[0] ? json_null() : control_json_string(why));
}

/* The OOM sources and what they told since the start; null without any. */
static json_t *oom_json(const struct core_status *st)
{
	const struct oom_sources_status *o = &st->oom;
	json_t *kills;

	if (!st->have_oom)
		return json_null();
	kills = json_object();
	for (int k = 0; kills && k <= OOM_CONSTRAINT_MEMCG; k++)
		json_object_set_new(kills, oom_constraint_name(k), json_integer((json_int_t)o->kills[k]));
	if (kills)
		json_object_set_new(kills, "counted", json_integer((json_int_t)o->counted));
	return json_pack("{s:{s:o, s:o, s:o}, s:o, s:I, s:I}", "sources", "bpf", source_json(o->watch, o->watch_why),
			 "kmsg", source_json(o->kmsg, o->kmsg_why), "counter", source_json(o->counter, o->counter_why),
			 "kills", kills ? kills : json_null(), "kmsg_lost", (json_int_t)o->kmsg_lost, "kmsg_bad_lines",
			 (json_int_t)o->kmsg_bad_lines);
}

/* Where discovery learns of new and changed processes, and why not from
 * a better source. */
static json_t *discovery_json(const struct core_status *st)
{
	return json_pack("{s:s, s:o, s:I, s:I, s:I}", "source", st->discovery_source ? st->discovery_source : "listing",
			 "why", st->discovery_why ? control_json_string(st->discovery_why) : json_null(), "passes",
			 (json_int_t)st->discovery_passes, "full_passes", (json_int_t)st->discovery_full_passes, "lost",
			 (json_int_t)st->discovery_lost);
}

/* The memory cgroups: the controller's version (null: none, and why),
 * the groups of watched processes, how their limits are watched. */
static json_t *cgroups_json(const struct core_status *st)
{
	return json_pack("{s:o, s:o, s:I, s:{s:I, s:I, s:I}}", "version",
			 st->cgroup_version ? json_integer(st->cgroup_version) : json_null(), "why",
			 st->cgroups_why ? control_json_string(st->cgroups_why) : json_null(), "groups",
			 (json_int_t)st->n_cgroups, "near_limit", "thresholds", (json_int_t)st->near_limit_thresholds,
			 "polled", (json_int_t)st->near_limit_polled, "told", (json_int_t)st->near_limit_rounds);
}

static void op_status(struct control_conn *c)
{
	struct control *s = c->server;
	struct core_status st;
	uint64_t now = now_monotonic_us();
	json_t *counts = json_object();

	s->core.status(s->core.userdata, &st);
	for (int k = 0; k < _CENSUS_STATUS_MAX; k++)
		if (counts)
			json_object_set_new(counts, store_census_status_name(k), json_integer((json_int_t)st.census.censuses[k]));
	if (counts)
		json_object_set_new(counts, "light", json_integer((json_int_t)st.census.censuses_light));
	if (counts)
		json_object_set_new(counts, "repeated", json_integer((json_int_t)st.census.censuses_repeated));

	/* rates between a point at least a minute old (or the start) and now */
	struct status_rate_point point = status_rate_point(&st, now);
	uint64_t censuses = point.censuses;
	if (s->rate_new.at_us == 0)
		s->rate_old = s->rate_new = (struct status_rate_point){ .at_us = st.started_us };
	if (now - s->rate_new.at_us >= RATE_WINDOW_US) {
		s->rate_old = s->rate_new;
		s->rate_new = point;
	}
	double span = (double)(now - s->rate_old.at_us);
	double per_minute = span > 0 ? (double)(censuses - s->rate_old.censuses) * 60e6 / span : 0;
	double used = span > 0 ? (double)(st.census.census_cpu_us - s->rate_old.cpu_us) / span : 0;

	const struct writer_stats *ws = &st.writer;
	json_t *error = ws->error ? control_json_string(ws->message[0] ? ws->message : strerror(-ws->error)) : json_null();

	json_t *result = json_pack(
		"{s:s, s:i, s:I, s:o, s:{s:o, s:o, s:i, s:b, s:o, s:I, s:I}, s:I, s:f, s:{s:f, s:f}, s:I, s:o, s:o}",
		"version", RAMWATCH_VERSION, "pid", (int)getpid(), "uptime_ms",
		(json_int_t)((now - st.started_us) / 1000), "config", control_json_string(st.config_path), "database",
		"path", control_json_string(st.db_path), "size", st.have_size ? json_integer((json_int_t)st.size) : json_null(),
		"schema_version", st.schema_version, "writing", ws->error == 0, "error", error,
		"queued_rows", (json_int_t)ws->queued, "dropped_rows", (json_int_t)st.dropped_rows, "watched",
		(json_int_t)st.watched, "censuses_per_minute", per_minute, "budget", "share",
		st.scan_budget, "used", used, "deferred", (json_int_t)st.census.deferred, "censuses", counts,
		"last_errors", last_errors(&c->peer));
	if (result) {
		json_object_set_new(json_object_get(result, "database"), "corruption", corruption_json(&st));
		json_object_set_new(result, "system", system_json(&st));
		json_object_set_new(result, "discovery", discovery_json(&st));
		json_object_set_new(result, "oom", oom_json(&st));
		json_object_set_new(result, "cgroups", cgroups_json(&st));
	}
	control_conn_result(c, result);
}

/* ------------------------------------------------------------ jobs */

static void submit(struct control_conn *c, struct control_query *q, control_job_run_t run, bool needs_store,
		   bool store_optional)
{
	struct control_job *j = control_job_new(run, needs_store, q, control_query_free);
	if (!j) {
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	j->store_optional = store_optional;
	j->deadline_us = c->started_us + control_op_timeout_us(c->op);
	j->owner = c;
	c->job = j;
	(void)control_worker_submit(c->server->worker, j);
}

static struct control_query *query_new(struct control_conn *c)
{
	struct control_query *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->req = TAKE_PTR(c->req);
	q->only_uid = control_peer_only_uid(&c->peer);
	/* the request keeps the text, for the worker */
	const char *owner = control_peer_only_owner(&c->peer);
	if (owner && !q->req->only_owner && !(q->req->only_owner = strdup(owner))) {
		control_query_free(q);
		return NULL;
	}
	q->only_owner = q->req->only_owner;
	q->peer_uid = c->peer.uid;
	return q;
}

/* The copy of the watched processes the peer may see, as it is made. */
struct live_copy {
	struct control_live_set *set;
	size_t allocated;
	int64_t only_uid;
	const char *only_owner;
};

static int copy_live(void *data, const struct core_process *p)
{
	struct live_copy *copy = data;
	struct control_live_set *set = copy->set;

	if (copy->only_uid >= 0 && p->uid != copy->only_uid &&
	    !(copy->only_owner && p->owner && strcasecmp(p->owner, copy->only_owner) == 0))
		return 0;
	if (set->n == copy->allocated) {
		size_t more = copy->allocated ? 2 * copy->allocated : 16;
		struct control_live *grown = reallocarray(set->p, more, sizeof(*set->p));
		if (!grown)
			return -ENOMEM;
		set->p = grown;
		copy->allocated = more;
	}
	struct control_live *l = &set->p[set->n++];
	*l = (struct control_live){
		.process_id = p->process_id,
		.pid = p->pid,
		.start_time = p->start_time,
		.started_at = p->started_at,
		.uid = p->uid,
		.last_seen = p->last_seen,
		.private = p->private,
		.resident = p->resident,
		.peak_private = p->peak_private,
		.peak_resident = p->peak_resident,
		.vram = p->vram,
		.peak_vram = p->peak_vram,
	};
	if ((p->boot_id && !(l->boot_id = strdup(p->boot_id))) || (p->comm && !(l->comm = strdup(p->comm))) ||
	    (p->exe && !(l->exe = strdup(p->exe))) || (p->cmdline && !(l->cmdline = strdup(p->cmdline))) ||
	    (p->cgroup && !(l->cgroup = strdup(p->cgroup))) || (p->memcg && !(l->memcg = strdup(p->memcg))))
		return -ENOMEM;
	return 0;
}

/* The watched processes the peer may see, copied for the worker. */
static struct control_live_set *live_snapshot(const struct core_interface *core, int64_t only_uid,
					      const char *only_owner)
{
	struct live_copy copy = { .set = calloc(1, sizeof(struct control_live_set)), .allocated = 16,
				  .only_uid = only_uid, .only_owner = only_owner };

	if (!copy.set || !(copy.set->p = calloc(copy.allocated, sizeof(*copy.set->p)))) {
		free(copy.set);
		return NULL;
	}
	if (core->for_each(core->userdata, copy_live, &copy) < 0) {
		control_live_set_free(copy.set);
		return NULL;
	}
	return copy.set;
}

static void op_processes(struct control_conn *c)
{
	struct control_query *q = query_new(c);
	if (!q || !(q->live = live_snapshot(&c->server->core, q->only_uid, q->only_owner))) {
		control_query_free(q);
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	/* the watched processes can be listed without the store */
	submit(c, q, control_query_run, true, !q->req->all);
}

/* A request whose entry names no start: its query reads the store on the
 * worker. */
static void op_query(struct control_conn *c)
{
	struct control_query *q = query_new(c);
	if (!q) {
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	submit(c, q, control_query_run, true, false);
}

/* oom and cgroups: the store holds what the daemon followed; where the
 * platform has nothing to follow, the answer says why beside its empty
 * list (the status's words), rather than leaving the asker to wonder. */
static void op_followed(struct control_conn *c)
{
	const struct core_interface *core = &c->server->core;
	struct core_status st;
	struct control_query *q = query_new(c);

	if (!q) {
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	core->status(core->userdata, &st);
	const char *why = c->op == CONTROL_OP_OOM ? st.oom_why : st.cgroups_why;
	if (why && !(q->why = strdup(why))) {
		control_query_free(q);
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	submit(c, q, control_query_run, true, false);
}

/* A report's process as "processes" gives it: the store does not know
 * which processes are watched now, nor their last sample. */
static int finish_report(struct control_conn *c, json_t *result)
{
	const struct core_interface *core = &c->server->core;
	json_t *p = json_object_get(result, "process");
	const json_t *pid = json_object_get(p, "pid"), *id = json_object_get(p, "process_id");
	struct core_process t;
	bool watched = json_is_integer(pid) && core->describe(core->userdata, (int)json_integer_value(pid), &t) == 0;

	if (!json_is_object(p))
		return 0;
	if (!watched || t.process_id <= 0 || !json_is_integer(id) || json_integer_value(id) != t.process_id)
		return json_object_get(p, "watched") ? 0 : json_object_set_new(p, "watched", json_false());
	struct control_live l = {
		.last_seen = t.last_seen,
		.private = t.private,
		.resident = t.resident,
		.peak_private = t.peak_private,
		.peak_resident = t.peak_resident,
		.vram = t.vram,
		.peak_vram = t.peak_vram,
		.cgroup = (char *)t.cgroup, /* borrowed: l is not freed */
		.memcg = (char *)t.memcg,
	};
	return control_process_set_live(p, &l);
}

void control_ops_job_done(struct control_job *j, void *userdata)
{
	struct control_conn *c = j->owner;
	(void)userdata;

	c->job = NULL;
	/* the daemon replaces a damaged file; this answer still fails */
	if (j->store_damaged && c->server->core.store_damaged)
		c->server->core.store_damaged(c->server->core.userdata, j->error.message);
	const struct control_handlers *h = control_handlers_get(c->op);
	if (j->error.code >= 0 && h->finish && h->finish(c, j->result) < 0)
		j->result = unref_json(j->result);
	if (j->error.code >= 0) {
		c->server->unavailable[0] = '\0';
		control_conn_result(c, TAKE_PTR(j->result));
	} else {
		enum control_code code = control_code_from_errno(j->error.code);
		char message[1024];
		const char *reason = error_message_or_strerror(&j->error, j->error.code);
		if (code == CONTROL_DENIED)
			control_denied_suffix(message, sizeof(message), reason, c->peer.uid);
		else
			snprintf(message, sizeof(message), "%s", reason);
		if (code == CONTROL_INTERNAL)
			log_warning("control: %s request failed: %s", request_table_name(c->op), message);
		else if (code == CONTROL_UNAVAILABLE && !j->store_damaged &&
			 strcmp(c->server->unavailable, message) != 0) {
			/* (a damaged file: the daemon's replacing it says so) */
			/* what a client is told, the operator hears once */
			log_warning("control: %s", message);
			snprintf(c->server->unavailable, sizeof(c->server->unavailable), "%s", message);
		}
		control_conn_error(c, code, message);
	}
	control_job_free(j);
}

/* ------------------------------------------------------------ scan */

static void on_census(void *userdata, const struct census_result *res)
{
	struct control_conn *c = userdata;
	const char *message = res->meta.message ? res->meta.message : res->message;

	/* the waiter is freed by the census tier after this call */
	c->waiter = NULL;
	if (res->meta.status == CENSUS_OK && res->census) {
		json_t *census = census_to_json(res->census, false);
		if (census && (json_object_set_new(census, "trigger", json_string(store_trigger_name(res->meta.trigger))) < 0 ||
			       json_object_set_new(census, "status", json_string("ok")) < 0)) {
			json_decref(census);
			census = NULL;
		}
		control_conn_result(c, census);
		return;
	}
	enum control_code code = res->meta.status == CENSUS_EXITED ? CONTROL_NOT_FOUND
				 : res->meta.status == CENSUS_DENIED ? CONTROL_DENIED
								     : CONTROL_INTERNAL;
	control_conn_error(c, code, message && *message ? message : store_census_status_name(res->meta.status));
}

static void op_scan(struct control_conn *c)
{
	const struct core_interface *core = &c->server->core;
	struct control_request *req = c->req;
	int pid = req->sel.pid;
	struct core_process t;
	struct control_owner st;

	if (core->describe(core->userdata, pid, &t) == 0) {
		if (!control_peer_may_see_account(&c->peer, t.uid, t.owner)) {
			deny_watched(c, &t);
			return;
		}
		int r = core->request_census(core->userdata, pid, req->full, req->light, on_census, c, &c->waiter);
		if (r < 0)
			control_conn_errorf(c, r == -ESRCH ? CONTROL_NOT_FOUND : CONTROL_INTERNAL,
					    "cannot take a census of process %d: %s", pid, strerror(-r));
		return;
	}
	if (refuse_unwatched(c, pid, &st))
		return;
	struct control_query *q = query_new(c);
	if (!q) {
		control_conn_error(c, CONTROL_INTERNAL, "out of memory");
		return;
	}
	q->proc_root = c->server->proc_root;
	/* the daemon's rule for huge processes holds for any process it reads */
	struct core_status now;
	core->status(core->userdata, &now);
	q->evidence = now.evidence;
	q->light = q->req->light || (!q->req->full && now.huge_process > 0 && st.have_resident &&
				     st.resident > now.huge_process);
	submit(c, q, control_query_scan, false, false);
}

/* ------------------------------------------------------------ mark */

static void op_mark(struct control_conn *c)
{
	const struct core_interface *core = &c->server->core;
	struct control_request *req = c->req;
	int pid = req->sel.pid;
	struct core_process t;
	struct control_owner st;
	int64_t time = 0;

	if (core->describe(core->userdata, pid, &t) < 0) {
		if (!refuse_unwatched(c, pid, &st))
			control_conn_errorf(c, CONTROL_NOT_FOUND,
					    "process %d (%s) is not watched: marks are for the processes the "
					    "daemon watches (Watch= in ramwatchd.conf)",
					    pid, st.name[0] ? st.name : "?");
		return;
	}
	if (!control_peer_may_see_account(&c->peer, t.uid, t.owner)) {
		deny_watched(c, &t);
		return;
	}
	int r = core->mark(core->userdata, pid, req->mark, (int64_t)c->peer.uid, &time);
	if (r < 0) {
		control_conn_errorf(c, r == -ESRCH ? CONTROL_NOT_FOUND : CONTROL_INTERNAL, "cannot mark process %d: %s",
				    pid, strerror(-r));
		return;
	}
	/* the row id is known once the store has written the process */
	json_t *id = t.process_id > 0 ? json_integer((json_int_t)t.process_id) : json_null();
	control_conn_result(c, json_pack("{s:o, s:I}", "process_id", id, "time", (json_int_t)time));
}

/* ------------------------------------------------------------ metrics */

/* Built on the loop from what it holds, as status is: no store, no
 * worker.  Another user's processes are left out of the groups; the
 * daemon-wide counters name no process. */
static void op_metrics(struct control_conn *c)
{
	int64_t only_uid = control_peer_only_uid(&c->peer);
	const char *only_owner = control_peer_only_owner(&c->peer);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	const struct core_interface *core = &c->server->core;
	int r = core->metrics_text(core->userdata, only_uid, only_owner, &text, &len);
	if (r < 0) {
		control_conn_errorf(c, CONTROL_INTERNAL, "cannot build the metrics: %s", strerror(-r));
		return;
	}
	json_t *result = json_pack("{s:s%}", "text", text, len);
	if (result && control_set_filtered(result, only_uid, only_owner) < 0)
		result = unref_json(result);
	control_conn_result(c, result);
}

/* ------------------------------------------------------------ dispatch */

/* Every request's handlers, as request-table.def names them: a request
 * declared there without its handlers here does not compile. */
#define HANDLERS(...) { __VA_ARGS__ }
static const struct control_handlers handlers[_CONTROL_OP_MAX] = {
#define REQUEST(ID, name, handlers_, ...) [CONTROL_OP_##ID] = handlers_,
#include "request-table.def"
#undef REQUEST
};
#undef HANDLERS

const struct control_handlers *control_handlers_get(enum control_op op)
{
	return op >= 0 && op < _CONTROL_OP_MAX ? &handlers[op] : NULL;
}

void control_ops_start(struct control_conn *c)
{
	const struct control_handlers *h = control_handlers_get(c->op);
	const struct request_decl *d = request_table_get(c->op);

	if (!h || (!h->start && !h->query)) {
		control_conn_error(c, CONTROL_INTERNAL, "an op without a handler");
		return;
	}
	if (!request_table_served_here(c->op)) {
		control_conn_errorf(c, CONTROL_BAD_REQUEST, "ramwatchd on %s does not serve the request '%s'",
				    request_table_platform_here(), request_table_name(c->op));
		return;
	}
	/* what the store gives a user who may see only their own processes
	 * holds only those */
	if (d->access == REQUEST_OWN_PROCESSES) {
		const char *owner = control_peer_only_owner(&c->peer);
		c->req->sel.only_uid = control_peer_only_uid(&c->peer);
		if (owner && !(c->req->only_owner = strdup(owner))) {
			control_conn_error(c, CONTROL_INTERNAL, "out of memory");
			return;
		}
		c->req->sel.only_owner = c->req->only_owner;
	}
	if (h->start)
		h->start(c);
	else
		op_query(c);
}

void control_ops_stop(struct control_conn *c)
{
	if (c->job) {
		control_worker_cancel(c->server->worker, c->job);
		c->job = NULL;
	}
	if (c->waiter) {
		c->server->core.cancel_census(c->server->core.userdata, c->waiter);
		c->waiter = NULL;
	}
}
