/* Asking ramwatchd from a subcommand: errors printed once, in the user's
 * words; paged answers followed on one connection. */
#include "ask.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "control-client.h"
#include "fileio.h"
#include "macro.h"
#include "timeparse.h"
#include "util.h"

int ask(const char *socket, json_t *request, uint64_t wait_us, json_t **ret_result)
{
	struct control_error err = { 0 };
	int r = control_client_ask(control_client_socket_path(socket), request, wait_us, ret_result, &err);
	if (r < 0)
		return fail("%s", err.error.message);
	return 0;
}

int ask_all_pages(const char *socket, json_t *request, json_t **ret_result)
{
	_cleanup_(control_client_closep) struct control_client *c = NULL;
	struct control_error err = { 0 };
	bool truncated = false;
	int r;

	if (json_object_set_new(request, "limit", json_integer(CONTROL_PAGE_ROWS)) < 0)
		return fail("%s", strerror(ENOMEM));
	if ((r = control_client_connect(control_client_socket_path(socket), &c, &err)) < 0 ||
	    (r = control_client_call_all(c, request, CONTROL_ROWS_MAX, CONTROL_WAIT_US, ret_result, &truncated, &err)) < 0)
		return fail("%s", err.error.message);
	if (truncated)
		fprintf(stderr,
			"ramwatch: stopped after %u rows; the rest is left out: narrow the time range or use --step\n",
			CONTROL_ROWS_MAX);
	return 0;
}

bool ask_take_option(struct ask_args *a, int opt, const char *arg)
{
	switch (opt) {
	case OPT_SOCKET: a->socket = arg; return true;
	case OPT_PID: a->pid = arg; return true;
	case OPT_NAME: a->name = arg; return true;
	case OPT_SINCE: a->since = arg; return true;
	case OPT_UNTIL: a->until = arg; return true;
	default: return false;
	}
}

int ask_put_selection(const char *command, json_t *request, const struct ask_args *a, bool name_allowed,
		      int64_t now_ms)
{
	int r;

	if ((r = ask_select(command, request, a->pid, a->name, name_allowed)) != 0 ||
	    (a->since && (r = ask_time(command, "--since", a->since, now_ms, request, "since")) != 0) ||
	    (a->until && (r = ask_time(command, "--until", a->until, now_ms, request, "until")) != 0))
		return r;
	return 0;
}

int ask_select(const char *command, json_t *request, const char *pid, const char *name, bool name_allowed)
{
	int v;

	if (pid && name)
		return usage_error(command, "give --pid or --name, not both");
	if (name && !name_allowed)
		return usage_error(command, "this command takes --pid, not --name");
	if (!pid && !name)
		return usage_error(command, name_allowed ? "give --pid PID or --name PATTERN" : "give --pid PID");
	if (name) {
		json_t *text = json_string(name);
		if (!text)
			return usage_error(command, "--name takes UTF-8 text");
		return json_object_set_new(request, "name", text) < 0 ? fail("%s", strerror(ENOMEM)) : 0;
	}
	if (parse_pid(pid, &v) < 0)
		return usage_error(command, "--pid takes a process id, not '%s'", pid);
	return json_object_set_new(request, "pid", json_integer(v)) < 0 ? fail("%s", strerror(ENOMEM)) : 0;
}

int ask_parse_time(const char *command, const char *option, const char *arg, int64_t now_ms, int64_t *ret_ms)
{
	int r = timeparse_time(arg, now_ms, ret_ms);
	if (r == -ERANGE)
		return usage_error(command, "%s '%s' is out of range (1970 to 9999)", option, arg);
	if (r < 0)
		return usage_error(command,
				   "%s takes a time: 30s, 5min, 2h, 7d or 1h30min ago, now, "
				   "2026-11-29T14:00 (local; or with Z or +01:00) or @UNIXSECONDS; not '%s'",
				   option, arg);
	return 0;
}

int ask_time(const char *command, const char *option, const char *arg, int64_t now_ms, json_t *request,
	     const char *key)
{
	int64_t v;
	int r = ask_parse_time(command, option, arg, now_ms, &v);
	if (r != 0)
		return r;
	return json_object_set_new(request, key, json_integer(v)) < 0 ? fail("%s", strerror(ENOMEM)) : 0;
}

int ask_output(const char *path, int (*write_to)(FILE *f, void *data), void *data)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!path) {
		r = write_to(stdout, data);
		if (r == -ENOMEM)
			return fail("%s", strerror(ENOMEM));
		if (r == -EBADMSG)
			return fail("ramwatchd sent an answer this client cannot read (a newer protocol?)");
		if (r < 0 || fflush(stdout) != 0 || ferror(stdout))
			return fail("cannot write the output: %s", strerror(r < 0 && r != -EIO ? -r : errno ? errno : EIO));
		return 0;
	}
	if (!(f = open_memstream(&buf, &len)))
		return fail("%s", strerror(ENOMEM));
	r = write_to(f, data);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r == -EBADMSG)
		return fail("ramwatchd sent an answer this client cannot read (a newer protocol?)");
	if (r < 0)
		return fail("%s", strerror(-r));
	if ((r = write_file_atomic(path, buf, len)) < 0)
		return fail("cannot write %s: %s", path, strerror(-r));
	return 0;
}

void ask_say_filtered(const json_t *result, const char *what, const char *verb, bool empty)
{
	const json_t *uid = json_object_get(result, "filtered_to_uid");
	const json_t *owner = json_object_get(result, "filtered_to_owner");
	const json_t *why = json_object_get(result, "why");

	if (json_is_string(owner))
		fprintf(stderr, "ramwatch: only %s (%s) are %s; Administrators and LocalSystem see all\n", what,
			json_string_value(owner), verb);
	else if (json_is_integer(uid))
		fprintf(stderr,
			"ramwatch: only %s (uid %" JSON_INTEGER_FORMAT
			") are %s; root and members of group ramwatch see all\n",
			what, json_integer_value(uid), verb);
	if (empty && json_is_string(why))
		fprintf(stderr, "ramwatch: %s\n", json_string_value(why));
}
