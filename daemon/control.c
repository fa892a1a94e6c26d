/* The control socket's server: listening through the transport
 * (control-transport.h), taking connections within RW_CLIENTS_MAX, and
 * the server's lifetime. */
#include "control.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-internal.h"
#include "control-transport.h"
#include "limits.h"
#include "log.h"
#include "util.h"

/* The one line a connection past RW_CLIENTS_MAX gets. */
static void refuse_busy(struct control_link *link)
{
	char busy[160];
	int n = snprintf(busy, sizeof(busy),
			 "{\"ok\":false,\"error\":\"too many connections at once (at most %u): try again shortly\","
			 "\"code\":\"busy\"}\n",
			 RW_CLIENTS_MAX);
	if (n > 0 && (size_t)n < sizeof(busy))
		control_link_refuse(link, busy, (size_t)n);
	else
		control_link_free(link);
}

static void on_accept(struct control_link *link, const struct control_peer *peer, void *userdata)
{
	struct control *c = userdata;

	if (c->n_conns >= RW_CLIENTS_MAX) {
		log_debug("control: %u connections already, refusing one", c->n_conns);
		refuse_busy(link);
		return;
	}
	int r = control_conn_new(c, link, peer);
	if (r < 0)
		log_warning_errno(r, "cannot serve a control connection: %m");
}

int control_new(struct event_loop *event, const struct core_interface *core, const struct control_options *o,
		struct control **ret)
{
	struct control *c = calloc(1, sizeof(*c));
	bool optional = false;
	int r;

	if (!c)
		return log_error_errno(ENOMEM, "out of memory");
	c->core = *core;
	c->event = event;
	c->root_fd = o->root_fd;
	if (o->proc_root && !(c->proc_root = strdup(o->proc_root))) {
		control_free(c);
		return log_error_errno(ENOMEM, "out of memory");
	}

	r = control_listener_new(event, o->socket_path, on_accept, c, &c->listener, &optional);
	if (r < 0) {
		control_free(c);
		if (!optional)
			return r;
		log_warning("running without a control socket: ramwatch status, history, report, scan and mark "
			    "cannot reach this daemon (give one with --socket)");
		*ret = NULL;
		return 0;
	}

	/* jansson seeds its hash function at the first object: here, on this
	 * thread, before the worker makes any */
	json_decref(json_object());
	r = control_worker_new(event, o->db_path, control_ops_job_done, c, &c->worker);
	if (r < 0) {
		control_free(c);
		return log_error_errno(r, "cannot start the control socket's worker thread: %m");
	}
	*ret = c;
	return 0;
}

struct control *control_free(struct control *c)
{
	if (!c)
		return NULL;
	/* connections first: their jobs are cancelled through the worker */
	while (c->conns)
		control_conn_free(c->conns);
	c->worker = control_worker_free(c->worker);
	c->listener = control_listener_free(c->listener);
	free(c->proc_root);
	free(c);
	return NULL;
}

void control_store_replaced(struct control *c)
{
	if (c && c->worker)
		control_worker_reopen(c->worker);
}
