/* The control socket's client on Windows: no ramwatchd serves this
 * platform (request-table.def says which platforms serve each request;
 * today only Linux), so a connection reaches nothing and each request is
 * refused by name, saying so.  The commands that ask the daemon (diff
 * --pid, the stored census's commands) compile unchanged and give that
 * reason. */
#include "control-client.h"

#include <errno.h>
#include <stdlib.h>

#include "request-table.h"

#define NO_DAEMON "ramwatchd runs on Linux"
#define ON_WINDOWS \
	"on Windows, ramwatch takes censuses itself (scan) and reads saved ones (summary, diff BEFORE.json " \
	"AFTER.json)"

/* Nothing is connected: the requests are refused when they are made. */
struct control_client {
	int unused;
};

/* The refusal of request (NULL: of connecting at all). */
static int not_here(const json_t *request, struct control_error *err)
{
	const char *op = request ? json_string_value(json_object_get(request, "op")) : NULL;
	int k = op ? request_table_find(op) : -1;

	if (err)
		snprintf(err->code, sizeof(err->code), "%s", "");
	if (k >= 0 && !request_table_served_here((enum control_op)k))
		return error_set(err ? &err->error : NULL, -EOPNOTSUPP,
				 "the request '%s' is not served on this platform: " NO_DAEMON "; " ON_WINDOWS, op);
	return error_set(err ? &err->error : NULL, -EOPNOTSUPP, "%s", NO_DAEMON ": " ON_WINDOWS);
}

const char *control_client_socket_path(const char *option)
{
	return option ? option : RW_SOCKET_DEFAULT;
}

int control_client_connect(const char *path, struct control_client **ret, struct control_error *err)
{
	(void)path;
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return error_set(err ? &err->error : NULL, -ENOMEM, "out of memory");
	return 0;
}

struct control_client *control_client_close(struct control_client *c)
{
	free(c);
	return NULL;
}

int control_client_call(struct control_client *c, json_t *request, uint64_t wait_us, json_t **ret_result,
			struct control_error *err)
{
	(void)c, (void)wait_us, (void)ret_result;
	return not_here(request, err);
}

int control_client_call_all(struct control_client *c, json_t *request, size_t max_rows, uint64_t wait_us,
			    json_t **ret_result, bool *ret_truncated, struct control_error *err)
{
	(void)c, (void)max_rows, (void)wait_us, (void)ret_result, (void)ret_truncated;
	return not_here(request, err);
}

int control_client_ask(const char *path, json_t *request, uint64_t wait_us, json_t **ret_result,
		       struct control_error *err)
{
	(void)path, (void)wait_us, (void)ret_result;
	return not_here(request, err);
}
