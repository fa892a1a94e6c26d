/* The client side of the control socket: answers parsed (and refused when
 * malformed), the socket's failures in the user's words (no daemon, no
 * answer, a closed connection, an answer past the limit), paged answers
 * merged.  The rendering of canned answers is tested in
 * test-render-answers.c. */
#include "control-client-testlib.h"

/* ---------------------------------------------------------------- answers */

static int parse_answer(const char *line, json_t **ret, struct control_error *err)
{
	*ret = NULL;
	return control_client_parse_answer(line, strlen(line), ret, err);
}

static void test_parse_answer(void **state)
{
	(void)state;
	struct control_error err;
	json_t *r;

	assert_int_equal(parse_answer("{\"ok\": true, \"id\": 3, \"result\": {\"watched\": 2}}", &r, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "watched")), 2);
	json_decref(r);

	assert_int_equal(parse_answer("{\"ok\": false, \"error\": \"process 4242 belongs to uid 1001; you (uid 1000) "
				      "may see only your own processes\", \"code\": \"denied\"}",
				      &r, &err),
			 -EREMOTEIO);
	assert_null(r);
	assert_string_equal(err.code, "denied");
	assert_int_equal(err.error.code, -EREMOTEIO);
	assert_string_equal(err.error.message,
			    "process 4242 belongs to uid 1001; you (uid 1000) may see only your own processes");

	static const struct {
		const char *line, *says;
	} bad[] = {
		{ "", "not JSON" },
		{ "{\"ok\": tru", "not JSON" },
		{ "[1, 2]", "not a JSON object" },
		{ "{\"result\": {}}", "\"ok\" is missing" },
		{ "{\"ok\": \"yes\", \"result\": {}}", "\"ok\" is not true or false" },
		{ "{\"ok\": true}", "without \"result\"" },
		{ "{\"ok\": false}", "without an \"error\" message" },
		{ "{\"ok\": false, \"error\": \"\"}", "without an \"error\" message" },
		{ "{\"ok\": false, \"error\": 7}", "without an \"error\" message" },
		{ "{\"ok\": true, \"ok\": false, \"result\": 1}", "not JSON" },
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		if (parse_answer(bad[i].line, &r, &err) != -EBADMSG)
			fail_msg("'%s' was accepted", bad[i].line);
		assert_null(r);
		assert_contains(err.error.message, "ramwatchd sent a malformed answer");
		assert_contains(err.error.message, bad[i].says);
	}
}

/* ---------------------------------------------------------------- the socket */

struct server {
	char dir[64], path[128];
	int fd;
	pthread_t thread;
	void (*behave)(int fd);
	char received[256];
};

static void *serve(void *arg)
{
	struct server *s = arg;
	int c = accept(s->fd, NULL, NULL);
	if (c < 0)
		return NULL;
	s->behave(c);
	close(c);
	return NULL;
}

static void server_start(struct server *s, void (*behave)(int fd))
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(s->dir, sizeof(s->dir), "/tmp/rwtest-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/ramwatch.sock", s->dir);
	assert_true(strlen(s->path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->fd >= 0);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s->fd, 4), 0);
	s->behave = behave;
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->fd);
	unlink(s->path);
	rmdir(s->dir);
}

static void write_str(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* Reads one request line and checks it is one compact line. */
static char last_request[256];

static void read_request(int fd)
{
	size_t n = 0;
	char c;
	while (n + 1 < sizeof(last_request) && read(fd, &c, 1) == 1) {
		last_request[n++] = c;
		if (c == '\n')
			break;
	}
	last_request[n] = '\0';
}

static void two_answers_at_once(int fd)
{
	read_request(fd);
	/* both answers in one write: the second waits in the client's buffer */
	write_str(fd, "{\"ok\": true, \"result\": {\"page\": 1}}\n{\"ok\": true, \"result\": {\"page\": 2}}\n");
	char c;
	while (read(fd, &c, 1) == 1 && c != '\n')
		;
}

static void answer_in_pieces(int fd)
{
	struct timespec ms = { 0, 20 * 1000 * 1000 };
	read_request(fd);
	write_str(fd, "{\"ok\": tr");
	nanosleep(&ms, NULL);
	write_str(fd, "ue, \"result\": {\"w");
	nanosleep(&ms, NULL);
	write_str(fd, "atched\": 5}}\n");
}

static void close_without_answer(int fd)
{
	read_request(fd);
}

static void never_answer(int fd)
{
	char c;
	read_request(fd);
	/* until the client goes away */
	while (read(fd, &c, 1) > 0)
		;
}

static void error_answer(int fd)
{
	read_request(fd);
	write_str(fd, "{\"ok\": false, \"error\": \"no process 4242 is known\", \"code\": \"not_found\"}\n");
}

static void huge_answer(int fd)
{
	static char block[1 << 16];
	size_t sent = 0;
	read_request(fd);
	memset(block, ' ', sizeof(block));
	/* past the limit without a newline; stops when the client gives up */
	while (sent <= RW_ANSWER_MAX + sizeof(block)) {
		ssize_t k = send(fd, block, sizeof(block), MSG_NOSIGNAL);
		if (k <= 0)
			return;
		sent += (size_t)k;
	}
}

/* Pages of three samples each, with the census repeated on every page;
 * "next" is "c1", "c2", ...; after pages_total pages it is null. */
static int pages_total;
static char page_requests[8][256];

static void pages(int fd)
{
	for (int k = 1;; k++) {
		char answer[512];
		read_request(fd);
		if (!last_request[0])
			return; /* the client closed */
		if (k <= (int)ELEMENTSOF(page_requests))
			memcpy(page_requests[k - 1], last_request, sizeof(last_request));
		char next[16];
		snprintf(next, sizeof(next), k < pages_total ? "\"c%d\"" : "null", k);
		snprintf(answer, sizeof(answer),
			 "{\"ok\": true, \"result\": {\"instances\": [{\"process_id\": 1}],"
			 " \"samples\": [{\"time\": %d}, {\"time\": %d}, {\"time\": %d}],"
			 " \"censuses\": [{\"census_id\": 1, \"time\": 0}], \"marks\": [], \"next\": %s}}\n",
			 3 * k, 3 * k + 1, 3 * k + 2, next);
		if (send(fd, answer, strlen(answer), MSG_NOSIGNAL) < 0)
			return;
	}
}

static void test_paged_answers(void **state)
{
	(void)state;
	struct server s;
	struct control_error err;
	struct control_client *c;
	json_t *req = json_pack("{s:s, s:i, s:i}", "op", "history", "pid", 42, "limit", 3), *r;
	bool truncated;

	/* every page, merged: the census once, the samples in order */
	pages_total = 3;
	memset(page_requests, 0, sizeof(page_requests));
	server_start(&s, pages);
	assert_int_equal(control_client_connect(s.path, &c, &err), 0);
	assert_int_equal(control_client_call_all(c, req, 1000, 5000000, &r, &truncated, &err), 0);
	control_client_close(c);
	server_stop(&s);
	assert_false(truncated);
	assert_int_equal(json_array_size(json_object_get(r, "samples")), 9);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(r, "samples"), 8), "time")),
			 11);
	assert_int_equal(json_array_size(json_object_get(r, "censuses")), 1);
	assert_int_equal(json_array_size(json_object_get(r, "instances")), 1);
	assert_null(json_object_get(r, "next"));
	json_decref(r);
	assert_string_equal(page_requests[0], "{\"op\":\"history\",\"pid\":42,\"limit\":3}\n");
	assert_string_equal(page_requests[1], "{\"op\":\"history\",\"pid\":42,\"limit\":3,\"cursor\":\"c1\"}\n");
	assert_string_equal(page_requests[2], "{\"op\":\"history\",\"pid\":42,\"limit\":3,\"cursor\":\"c2\"}\n");
	assert_string_equal(page_requests[3], "");

	/* past the row limit the client stops, and says rows were left */
	pages_total = 1000;
	json_object_del(req, "cursor");
	server_start(&s, pages);
	assert_int_equal(control_client_connect(s.path, &c, &err), 0);
	assert_int_equal(control_client_call_all(c, req, 7, 5000000, &r, &truncated, &err), 0);
	control_client_close(c);
	server_stop(&s);
	assert_true(truncated);
	assert_int_equal(json_array_size(json_object_get(r, "samples")), 9);
	json_decref(r);
	json_decref(req);
}

static json_t *status_request(void)
{
	json_t *j = json_pack("{s:s, s:s}", "op", "status", "note", "two\nlines");
	assert_non_null(j);
	return j;
}

static void test_socket_answers(void **state)
{
	(void)state;
	struct server s;
	struct control_error err;
	struct control_client *c;
	json_t *req = status_request(), *r;

	server_start(&s, two_answers_at_once);
	assert_int_equal(control_client_connect(s.path, &c, &err), 0);
	assert_int_equal(control_client_call(c, req, 5000000, &r, &err), 0);
	/* one compact line, the newline inside a string escaped */
	assert_string_equal(last_request, "{\"op\":\"status\",\"note\":\"two\\nlines\"}\n");
	assert_int_equal(json_integer_value(json_object_get(r, "page")), 1);
	json_decref(r);
	assert_int_equal(control_client_call(c, req, 5000000, &r, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "page")), 2);
	json_decref(r);
	control_client_close(c);
	server_stop(&s);

	server_start(&s, answer_in_pieces);
	assert_int_equal(control_client_ask(s.path, req, 5000000, &r, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "watched")), 5);
	json_decref(r);
	server_stop(&s);

	server_start(&s, error_answer);
	assert_int_equal(control_client_ask(s.path, req, 5000000, &r, &err), -EREMOTEIO);
	assert_string_equal(err.error.message, "no process 4242 is known");
	assert_string_equal(err.code, "not_found");
	server_stop(&s);
	json_decref(req);
}

static void test_socket_failures(void **state)
{
	(void)state;
	struct server s;
	struct control_error err;
	json_t *req = status_request(), *r = NULL;
	char path[200];

	/* no daemon: the socket file is missing, or nobody listens on it */
	assert_int_equal(control_client_ask("/nonexistent/ramwatch.sock", req, 1000000, &r, &err), -ENOENT);
	assert_string_equal(err.error.message, "cannot connect to ramwatchd at /nonexistent/ramwatch.sock: No such file or "
					 "directory — is ramwatchd running? (systemctl status ramwatchd)");
	snprintf(path, sizeof(path), "/tmp/rwtest-plain-%d", getpid());
	FILE *f = fopen(path, "w");
	fclose(f);
	assert_int_equal(control_client_ask(path, req, 1000000, &r, &err), -ECONNREFUSED);
	assert_contains(err.error.message, "Connection refused — is ramwatchd running?");
	unlink(path);
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(control_client_ask(path, req, 1000000, &r, &err), -ENAMETOOLONG);
	assert_contains(err.error.message, "does not fit a Unix socket address");

	/* a socket the user may not write to (only when not root: root may) */
	if (geteuid() != 0) {
		server_start(&s, close_without_answer);
		chmod(s.path, 0);
		assert_int_equal(control_client_ask(s.path, req, 1000000, &r, &err), -EACCES);
		assert_contains(err.error.message, "Permission denied — connecting needs write permission");
		chmod(s.path, 0666);
		assert_int_equal(control_client_ask(s.path, req, 1000000, &r, &err), -ECONNRESET);
		server_stop(&s);
	}

	server_start(&s, close_without_answer);
	assert_int_equal(control_client_ask(s.path, req, 5000000, &r, &err), -ECONNRESET);
	assert_contains(err.error.message, "closed the connection without answering");
	server_stop(&s);

	server_start(&s, never_answer);
	assert_int_equal(control_client_ask(s.path, req, 200000, &r, &err), -ETIMEDOUT);
	assert_contains(err.error.message, "did not answer within");
	assert_string_equal(err.code, "timeout");
	assert_int_equal(err.error.code, -ETIMEDOUT);
	server_stop(&s);

	server_start(&s, huge_answer);
	assert_int_equal(control_client_ask(s.path, req, 30000000, &r, &err), -EMSGSIZE);
	assert_contains(err.error.message, "longer than 64 MiB");
	assert_string_equal(err.code, "too_large");
	assert_int_equal(err.error.code, -EMSGSIZE);
	server_stop(&s);

	/* a request past the daemon's limit is not sent */
	char *big = malloc(RW_REQUEST_MAX + 1);
	memset(big, 'a', RW_REQUEST_MAX);
	big[RW_REQUEST_MAX] = '\0';
	json_object_set_new(req, "name", json_string(big));
	free(big);
	server_start(&s, close_without_answer);
	assert_int_equal(control_client_ask(s.path, req, 1000000, &r, &err), -EMSGSIZE);
	assert_contains(err.error.message, "ramwatchd takes at most 65536");
	server_stop(&s);
	assert_null(r);
	json_decref(req);

	/* the socket: the option, else the environment, else the default */
	unsetenv(CONTROL_SOCKET_ENV);
	assert_string_equal(control_client_socket_path(NULL), "/run/ramwatch/ramwatch.sock");
	setenv(CONTROL_SOCKET_ENV, "", 1);
	assert_string_equal(control_client_socket_path(NULL), "/run/ramwatch/ramwatch.sock");
	setenv(CONTROL_SOCKET_ENV, "/tmp/x.sock", 1);
	assert_string_equal(control_client_socket_path(NULL), "/tmp/x.sock");
	assert_string_equal(control_client_socket_path("/run/other.sock"), "/run/other.sock");
	unsetenv(CONTROL_SOCKET_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_answer),
		cmocka_unit_test(test_socket_answers),
		cmocka_unit_test(test_socket_failures),
		cmocka_unit_test(test_paged_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
