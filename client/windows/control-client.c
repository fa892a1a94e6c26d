/* The control socket's client on Windows: ramwatchd runs on Linux only, so
 * every call fails and says so.  The commands that ask the daemon (diff
 * --pid, the stored census's commands) compile unchanged and give that
 * reason. */
#include "control-client.h"

#include <errno.h>
#include <stdlib.h>

#define NO_DAEMON \
	"ramwatchd runs on Linux: on Windows, ramwatch takes censuses itself (scan) and reads saved ones " \
	"(summary, diff BEFORE.json AFTER.json)"

static int no_daemon(struct control_error *err)
{
	if (err)
		snprintf(err->code, sizeof(err->code), "%s", "");
	return error_set(err ? &err->error : NULL, -EOPNOTSUPP, "%s", NO_DAEMON);
}

const char *control_client_socket_path(const char *option)
{
	return option ? option : RW_SOCKET_DEFAULT;
}

int control_client_connect(const char *path, struct control_client **ret, struct control_error *err)
{
	(void)path;
	*ret = NULL;
	return no_daemon(err);
}

struct control_client *control_client_close(struct control_client *c)
{
	(void)c;
	return NULL;
}

int control_client_call(struct control_client *c, json_t *request, uint64_t wait_us, json_t **ret_result,
			struct control_error *err)
{
	(void)c, (void)request, (void)wait_us, (void)ret_result;
	return no_daemon(err);
}

int control_client_call_all(struct control_client *c, json_t *request, size_t max_rows, uint64_t wait_us,
			    json_t **ret_result, bool *ret_truncated, struct control_error *err)
{
	(void)c, (void)request, (void)max_rows, (void)wait_us, (void)ret_result, (void)ret_truncated;
	return no_daemon(err);
}

int control_client_ask(const char *path, json_t *request, uint64_t wait_us, json_t **ret_result,
		       struct control_error *err)
{
	(void)path, (void)request, (void)wait_us, (void)ret_result;
	return no_daemon(err);
}
