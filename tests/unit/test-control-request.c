/* Control requests: what is refused and why, the defaults, every bound
 * (pid, limit, a mark's name) one past it; UTF-8 and mark names; answer
 * lines and their size limit. */
#include "testlib.h"

#include <errno.h>

#include "classes.h"
#include "control-request.h"
#include "limits.h"

#define NOW 1764445000000LL

struct parsed_request {
	int r;
	struct control_request *req;
	json_t *id;
	struct error err;
};

static struct parsed_request parse_len(const char *line, size_t len)
{
	struct parsed_request p = { 0 };
	p.r = control_request_parse(line, len, NOW, &p.req, &p.id, &p.err);
	return p;
}

static struct parsed_request parse(const char *line)
{
	return parse_len(line, strlen(line));
}

static void done(struct parsed_request *p)
{
	control_request_free(p->req);
	json_decref(p->id);
}

/* Asserts a refusal whose message holds want. */
#define assert_refused(line, want)                                                              \
	do {                                                                                    \
		struct parsed_request _p = parse(line);                                         \
		if (_p.r != -EINVAL || !strstr(_p.err.message, (want)))                                 \
			fail_msg("%s: r=%d err=\"%s\", expected \"%s\"", (line), _p.r, _p.err.message, (want)); \
		done(&_p);                                                                      \
	} while (0)

static void test_not_a_request(void **state)
{
	(void)state;
	assert_refused("", "not JSON");
	assert_refused("{\"op\": \"status\"", "not JSON");
	assert_refused("{\"op\": \"status\"} trailing", "not JSON");
	assert_refused("[1, 2]", "a JSON object");
	assert_refused("42", "a JSON object");
	assert_refused("\"status\"", "a JSON object");
	assert_refused("null", "a JSON object");
	assert_refused("{}", "\"op\" is needed");
	assert_refused("{\"op\": 3}", "op: a string");
	assert_refused("{\"op\": \"frobnicate\"}", "unknown op 'frobnicate'");
	assert_refused("{\"op\": \"status\", \"op\": \"status\"}", "not JSON");
	assert_refused("{\"op\": \"status\", \"verbose\": true}", "status: unknown argument 'verbose'");
	assert_refused("{\"op\": \"history\", \"pid\": 1, \"proces_id\": 3}", "unknown argument 'proces_id'");

	/* bytes that are not UTF-8, with where */
	assert_refused("{\"op\": \"st\xff\"}", "not UTF-8 (byte 10)");
	assert_refused("{\"op\": \"\xc0\xaf\"}", "not UTF-8");      /* overlong '/' */
	assert_refused("{\"op\": \"\xed\xa0\x80\"}", "not UTF-8");  /* a surrogate */
	/* a NUL byte inside the line */
	struct parsed_request p = parse_len("{\"op\": \"status\"}\0x", 18);
	assert_int_equal(p.r, -EINVAL);
	done(&p);
	/* an escaped NUL inside a string */
	assert_refused("{\"op\": \"sta\\u0000tus\"}", "not JSON");
}

static void test_id_is_echoed_even_when_refused(void **state)
{
	(void)state;
	struct parsed_request p = parse("{\"op\": \"history\", \"id\": [7, \"x\"]}");
	assert_int_equal(p.r, -EINVAL);
	assert_non_null(p.id);
	assert_true(json_is_array(p.id) && json_array_size(p.id) == 2);
	done(&p);

	p = parse("{\"op\": \"status\", \"id\": 7}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->op, CONTROL_OP_STATUS);
	assert_int_equal(json_integer_value(p.req->id), 7);
	done(&p);

	p = parse("not json");
	assert_null(p.id);
	done(&p);

	/* metrics takes no argument */
	p = parse("{\"op\": \"metrics\", \"id\": 8}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->op, CONTROL_OP_METRICS);
	assert_string_equal(request_table_name(p.req->op), "metrics");
	done(&p);
	assert_refused("{\"op\": \"metrics\", \"group\": \"comm\"}", "metrics: unknown argument 'group'");
	/* an op missing: the refusal lists every request, as the table has them */
	char ops[512];
	assert_refused("{}", request_table_list(ops, sizeof(ops)));
}

static void test_selection(void **state)
{
	(void)state;
	assert_refused("{\"op\": \"report\"}", "one of pid, name or process_id");
	assert_refused("{\"op\": \"report\", \"pid\": 1, \"process_id\": 2}", "only one of");
	assert_refused("{\"op\": \"report\", \"pid\": 0}", "pid: 0 is out of range");
	assert_refused("{\"op\": \"report\", \"pid\": -4}", "out of range");
	assert_refused("{\"op\": \"report\", \"pid\": 2147483648}", "out of range");
	assert_refused("{\"op\": \"report\", \"pid\": \"42\"}", "pid: an integer");
	assert_refused("{\"op\": \"report\", \"pid\": 4.5}", "pid: an integer");
	assert_refused("{\"op\": \"report\", \"name\": \"\"}", "name: a pattern");
	assert_refused("{\"op\": \"report\", \"process_id\": 0}", "out of range");
	assert_refused("{\"op\": \"history\", \"name\": \"py*\", \"instance\": \"all\"}", "instance: only with pid");
	assert_refused("{\"op\": \"history\", \"pid\": 5, \"instance\": \"some\"}", "instance:");

	struct parsed_request p = parse("{\"op\": \"history\", \"pid\": 2147483647, \"instance\": \"all\"}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->sel.pid, 2147483647);
	assert_true(p.req->sel.all_instances);
	assert_int_equal(p.req->sel.only_uid, -1);
	done(&p);

	/* null is the default */
	p = parse("{\"op\": \"census\", \"process_id\": 17, \"pid\": null, \"at\": null}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->sel.process_id, 17);
	assert_int_equal(p.req->sel.pid, 0);
	assert_true(p.req->at == INT64_MAX);
	done(&p);
}

static void test_history_arguments(void **state)
{
	(void)state;
	struct parsed_request p = parse("{\"op\": \"history\", \"name\": \"python*\"}");
	assert_int_equal(p.r, 0);
	assert_string_equal(p.req->sel.name, "python*");
	/* the last hour by default */
	assert_true(p.req->until == NOW);
	assert_true(p.req->since == NOW - 3600 * 1000);
	assert_int_equal(p.req->limit, RW_ANSWER_ROWS_DEFAULT);
	assert_null(p.req->cursor);
	assert_int_equal(p.req->n_classes, 0);
	done(&p);

	p = parse("{\"op\": \"history\", \"pid\": 9, \"since\": 100, \"until\": 200, \"classes\": [\"python\", "
		  "\"malloc\"], \"step_ms\": 60000, \"limit\": 100000, \"cursor\": \"abc\"}");
	assert_int_equal(p.r, 0);
	assert_true(p.req->since == 100 && p.req->until == 200);
	assert_int_equal(p.req->n_classes, 2);
	assert_string_equal(p.req->classes[0], "python");
	assert_string_equal(p.req->classes[1], "malloc");
	assert_true(p.req->step_ms == 60000);
	assert_int_equal(p.req->limit, RW_ANSWER_ROWS_MAX);
	assert_string_equal(p.req->cursor, "abc");
	done(&p);

	/* an until near the epoch: since does not go below 0 */
	p = parse("{\"op\": \"history\", \"pid\": 9, \"until\": 1000}");
	assert_int_equal(p.r, 0);
	assert_true(p.req->since == 0);
	done(&p);

	/* one past the row limit */
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"limit\": 100001}", "limit: 100001 is out of range");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"limit\": 0}", "out of range");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"since\": 300, \"until\": 200}", "since (300) is after until");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"since\": -1}", "out of range");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"step_ms\": -5}", "out of range");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"classes\": \"python\"}", "classes: an array");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"classes\": [\"python\", 3]}", "at [1]");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"classes\": [\"pyhton\"]}", "unknown class 'pyhton'");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"classes\": [\"python\", \"python\"]}", "twice");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"cursor\": 5}", "cursor: a string");
	assert_refused("{\"op\": \"history\", \"pid\": 9, \"cursor\": \"\"}", "cursor:");

	/* every class at once is fine; one more (a repeat) is not */
	char line[2048];
	int n = snprintf(line, sizeof(line), "{\"op\": \"history\", \"pid\": 9, \"classes\": [");
	for (int k = 0; k < _CLASS_MAX; k++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s\"%s\"", k ? ", " : "", class_key(k));
	snprintf(line + n, sizeof(line) - (size_t)n, "]}");
	p = parse(line);
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->n_classes, _CLASS_MAX);
	done(&p);
	snprintf(line + n, sizeof(line) - (size_t)n, ", \"other\"]}");
	assert_refused(line, "classes:");
}

static void test_events_processes_census(void **state)
{
	(void)state;
	struct parsed_request p = parse("{\"op\": \"events\", \"process_id\": 3}");
	assert_int_equal(p.r, 0);
	/* events: all of them by default */
	assert_true(p.req->since == 0 && p.req->until == NOW);
	done(&p);

	p = parse("{\"op\": \"processes\"}");
	assert_int_equal(p.r, 0);
	assert_false(p.req->all);
	assert_string_equal(p.req->sort, "private");
	assert_int_equal(p.req->limit, 1000);
	done(&p);

	p = parse("{\"op\": \"processes\", \"all\": true, \"sort\": \"peak\", \"limit\": 5}");
	assert_int_equal(p.r, 0);
	assert_true(p.req->all);
	assert_string_equal(p.req->sort, "peak");
	assert_int_equal(p.req->limit, 5);
	done(&p);

	assert_refused("{\"op\": \"processes\", \"all\": 1}", "all: true or false");
	assert_refused("{\"op\": \"processes\", \"sort\": \"size\"}", "sort:");
	assert_refused("{\"op\": \"processes\", \"pid\": 4}", "unknown argument 'pid'");
	assert_refused("{\"op\": \"census\", \"pid\": 4, \"at\": \"now\"}", "at: unix milliseconds, \"first\"");
	assert_refused("{\"op\": \"census\", \"pid\": 4, \"at\": -5}", "at: -5 is out of range");
	p = parse("{\"op\": \"census\", \"pid\": 4, \"at\": \"first\"}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->at, STORE_CENSUS_FIRST);
	done(&p);
	p = parse("{\"op\": \"census\", \"pid\": 4, \"at\": \"last\"}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.req->at, INT64_MAX);
	done(&p);
}

static void test_scan_and_mark(void **state)
{
	(void)state;
	assert_refused("{\"op\": \"scan\"}", "pid is needed");
	assert_refused("{\"op\": \"scan\", \"name\": \"x\"}", "unknown argument 'name'");
	assert_refused("{\"op\": \"scan\", \"pid\": 5, \"full\": true, \"light\": true}", "one or the other");
	struct parsed_request p = parse("{\"op\": \"scan\", \"pid\": 5, \"full\": true}");
	assert_int_equal(p.r, 0);
	assert_true(p.req->full && !p.req->light);
	done(&p);
	/* false is not asking for it (as ramwatch scan --daemon sends both) */
	p = parse("{\"op\": \"scan\", \"pid\": 5, \"full\": true, \"light\": false}");
	assert_int_equal(p.r, 0);
	assert_true(p.req->full && !p.req->light);
	done(&p);

	assert_refused("{\"op\": \"mark\", \"pid\": 5}", "name is needed");
	assert_refused("{\"op\": \"mark\", \"name\": \"x\"}", "pid is needed");
	assert_refused("{\"op\": \"mark\", \"pid\": 5, \"name\": \"\"}", "a mark needs a name");
	assert_refused("{\"op\": \"mark\", \"pid\": 5, \"name\": \"a\\nb\"}", "control character U+000A");
	assert_refused("{\"op\": \"mark\", \"pid\": 5, \"name\": \"a\\u0085b\"}", "control character U+0085");
	assert_refused("{\"op\": \"mark\", \"pid\": 5, \"name\": \"\\u007f\"}", "U+007F");
	assert_refused("{\"op\": \"mark\", \"pid\": 5, \"name\": 3}", "name: a string");

	/* RW_MARK_NAME_MAX bytes are fine, one more is not (multibyte
	 * characters count in bytes) */
	char name[RW_MARK_NAME_MAX + 2], line[512];
	memset(name, 'a', sizeof(name));
	name[RW_MARK_NAME_MAX] = '\0';
	snprintf(line, sizeof(line), "{\"op\": \"mark\", \"pid\": 5, \"name\": \"%s\"}", name);
	p = parse(line);
	assert_int_equal(p.r, 0);
	assert_int_equal(strlen(p.req->mark), RW_MARK_NAME_MAX);
	done(&p);
	name[RW_MARK_NAME_MAX] = 'a';
	name[RW_MARK_NAME_MAX + 1] = '\0';
	snprintf(line, sizeof(line), "{\"op\": \"mark\", \"pid\": 5, \"name\": \"%s\"}", name);
	assert_refused(line, "201 bytes, longer than the 200");
	/* 199 bytes and a two-byte character: 201 */
	memset(name, 'a', sizeof(name));
	snprintf(line, sizeof(line), "{\"op\": \"mark\", \"pid\": 5, \"name\": \"%.199s\xc3\xa9\"}", name);
	assert_refused(line, "201 bytes");

	p = parse("{\"op\": \"mark\", \"pid\": 5, \"name\": \"warm-up \xe2\x86\x92 training \xf0\x9f\x9a\x80\"}");
	assert_int_equal(p.r, 0);
	assert_string_equal(p.req->mark, "warm-up \xe2\x86\x92 training \xf0\x9f\x9a\x80");
	done(&p);
}

static void test_utf8(void **state)
{
	(void)state;
	size_t off = 99;
	assert_true(control_utf8_valid("", 0, &off));
	assert_true(control_utf8_valid("plain", 5, &off));
	assert_true(control_utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, &off));
	assert_true(control_utf8_valid("\xf4\x8f\xbf\xbf", 4, &off)); /* U+10FFFF */
	assert_false(control_utf8_valid("ab\xf4\x90\x80\x80", 6, &off)); /* above U+10FFFF */
	assert_int_equal(off, 2);
	assert_false(control_utf8_valid("\xe0\x80\xaf", 3, &off)); /* overlong */
	assert_int_equal(off, 0);
	assert_false(control_utf8_valid("abc\xc3", 4, &off)); /* cut short */
	assert_int_equal(off, 3);
	assert_false(control_utf8_valid("\x80", 1, &off)); /* a lone continuation */
	assert_false(control_utf8_valid("\xf8\x88\x80\x80\x80", 5, &off)); /* five bytes */
	assert_false(control_utf8_valid("\xed\xbf\xbf", 3, &off)); /* U+DFFF */

	struct error err;
	assert_int_equal(control_mark_name_check("ok", 2, &err), 0);
	assert_int_equal(control_mark_name_check("\t", 1, &err), -EINVAL);
	assert_int_equal(control_mark_name_check("a\xff", 2, &err), -EINVAL);
	assert_non_null(strstr(err.message, "not UTF-8 (byte 1)"));
	assert_int_equal(control_mark_name_check("\xc2\xa0", 2, &err), 0); /* U+00A0 is not C1 */
}

static void test_json_string(void **state)
{
	(void)state;
	json_t *s = control_json_string("python3");
	assert_string_equal(json_string_value(s), "python3");
	json_decref(s);
	s = control_json_string(NULL);
	assert_true(json_is_null(s));
	/* a comm from /proc is bytes: the bad ones become U+FFFD */
	s = control_json_string("a\xff" "b\xc3");
	assert_string_equal(json_string_value(s), "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	json_decref(s);
}

static void test_answers(void **state)
{
	(void)state;
	json_t *id = json_integer(7);
	json_t *a = control_answer_ok(id, json_pack("{s:i}", "n", 1));
	char *line;
	size_t len;
	assert_int_equal(control_answer_line(a, RW_ANSWER_MAX, &line, &len), 0);
	assert_string_equal(line, "{\"ok\":true,\"id\":7,\"result\":{\"n\":1}}\n");
	assert_int_equal(len, strlen(line));
	free(line);
	json_decref(a);

	a = control_answer_error(NULL, CONTROL_DENIED, "no\nnewline inside");
	assert_int_equal(control_answer_line(a, RW_ANSWER_MAX, &line, &len), 0);
	assert_string_equal(line, "{\"ok\":false,\"error\":\"no\\nnewline inside\",\"code\":\"denied\"}\n");
	/* exactly that long fits; one byte less does not */
	free(line);
	char *again;
	assert_int_equal(control_answer_line(a, len, &again, &len), 0);
	free(again);
	assert_int_equal(control_answer_line(a, len - 1, &again, &len), -E2BIG);
	json_decref(a);
	json_decref(id);

	/* an answer far past the limit stops being built at the limit */
	json_t *big = json_array();
	for (int i = 0; i < 100000; i++)
		json_array_append_new(big, json_string("0123456789abcdef0123456789abcdef"));
	a = control_answer_ok(NULL, big);
	assert_int_equal(control_answer_line(a, 64 * 1024, &line, &len), -E2BIG);
	json_decref(a);

	for (int c = 0; c < _CONTROL_CODE_MAX; c++)
		assert_non_null(control_code_name(c));
	assert_null(control_code_name(_CONTROL_CODE_MAX));
	assert_int_equal(control_code_from_errno(-ENOENT), CONTROL_NOT_FOUND);
	assert_int_equal(control_code_from_errno(-EACCES), CONTROL_DENIED);
	assert_int_equal(control_code_from_errno(-ETIME), CONTROL_TIMEOUT);
	assert_int_equal(control_code_from_errno(-EBUSY), CONTROL_UNAVAILABLE);
	assert_int_equal(control_code_from_errno(-ENOMEM), CONTROL_INTERNAL);
	assert_true(control_op_timeout_us(CONTROL_OP_SCAN) == RW_SCAN_TIMEOUT_US);
	assert_true(control_op_timeout_us(CONTROL_OP_HISTORY) == RW_REQUEST_TIMEOUT_US);
}

/* Whatever the line, parsing gives a request or a reason, never a crash
 * (a cheap fuzz over mutations of valid requests). */
static void test_mutations(void **state)
{
	(void)state;
	static const char *const seeds[] = {
		"{\"op\": \"history\", \"pid\": 9, \"since\": 100, \"classes\": [\"python\"], \"cursor\": \"x\"}",
		"{\"op\": \"mark\", \"pid\": 5, \"name\": \"phase \xc3\xa9\"}",
		"{\"op\": \"processes\", \"all\": true, \"sort\": \"peak\", \"limit\": 5, \"id\": {\"a\": [1]}}",
	};
	unsigned seed = 7;
	char buf[256];
	for (size_t s = 0; s < ELEMENTSOF(seeds); s++)
		for (int round = 0; round < 20000; round++) {
			size_t len = strlen(seeds[s]);
			memcpy(buf, seeds[s], len);
			for (int k = 0; k < 1 + round % 4; k++) {
				seed = seed * 1103515245u + 12345u;
				buf[(seed >> 8) % len] = (char)(seed >> 16);
			}
			struct parsed_request p = parse_len(buf, len);
			assert_true(p.r == 0 || p.r == -EINVAL);
			if (p.r < 0)
				assert_true(p.err.message[0] != '\0');
			done(&p);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_a_request),	   cmocka_unit_test(test_id_is_echoed_even_when_refused),
		cmocka_unit_test(test_selection),	   cmocka_unit_test(test_history_arguments),
		cmocka_unit_test(test_events_processes_census), cmocka_unit_test(test_scan_and_mark),
		cmocka_unit_test(test_utf8),		   cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_answers),		   cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
