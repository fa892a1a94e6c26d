/* Selectors: every kind parsed, formatted back, matched and not matched;
 * the cgroup component rule; users by name and number; the needs flags and
 * the list limit. */
#include "testlib.h"

#include <errno.h>

#include "limits.h"
#include "selector.h"

/* Parses s, which must succeed. */
static struct selector parse_ok(const char *s)
{
	struct selector sel;
	struct error err = { 0 };
	int r = selector_parse(s, &sel, &err);
	if (r < 0)
		fail_msg("selector_parse(\"%s\"): %d %s", s, r, err.message);
	return sel;
}

/* Parses s, which must fail with r and a message containing part. */
static void parse_fails(const char *s, int r, const char *part)
{
	struct selector sel = { .arg = NULL };
	struct error err = { 0 };
	int got = selector_parse(s, &sel, &err);
	if (got != r || !strstr(err.message, part))
		fail_msg("selector_parse(\"%s\"): %d \"%s\", expected %d with \"%s\"", s, got, err.message, r, part);
	assert_null(sel.arg);
}

static bool matches(const char *s, const struct selector_facts *f)
{
	struct selector sel = parse_ok(s);
	bool m = selector_match(&sel, f);
	selector_done(&sel);
	return m;
}

static const struct selector_facts postgres = {
	.pid = 4242,
	.comm = "postgres",
	.exe = "/usr/lib/postgresql/16/bin/postgres",
	.cmdline = "postgres: checkpointer",
	.uid = 106,
	.cgroup = "/system.slice/postgresql@16-main.service",
};

static void test_parse_and_format(void **state)
{
	(void)state;
	static const char *const texts[] = { "all",	     "pid:1",	       "name:postgres*",
					     "cmdline:*train.py*", "exe:/usr/bin/python3*", "user:0",
					     "cgroup:/system.slice" };
	static const enum selector_kind kinds[] = { SELECTOR_ALL, SELECTOR_PID,	 SELECTOR_NAME,	  SELECTOR_CMDLINE,
						    SELECTOR_EXE, SELECTOR_USER, SELECTOR_CGROUP };

	for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
		struct selector s = parse_ok(texts[i]);
		char buf[128];
		assert_int_equal(s.kind, kinds[i]);
		assert_int_equal(selector_format(&s, buf, sizeof(buf)), strlen(texts[i]));
		assert_string_equal(buf, texts[i]);
		selector_done(&s);
		assert_null(s.arg);
	}

	struct selector s = parse_ok("all");
	assert_null(s.arg);
	s = parse_ok("pid:2147483647");
	assert_int_equal(s.num, 2147483647);
	assert_string_equal(s.arg, "2147483647");
	selector_done(&s);

	/* a cut buffer: the length that would have been written, a cut text */
	char small[6];
	s = parse_ok("name:postgres");
	assert_int_equal(selector_format(&s, small, sizeof(small)), 13);
	assert_string_equal(small, "name:");
	selector_done(&s);
	selector_done(NULL);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("proc:x", -EINVAL,
		    "unknown selector 'proc:x' (use all, pid:N, name:GLOB, cmdline:GLOB, exe:PATH, user:NAME or "
		    "cgroup:PREFIX)");
	parse_fails("postgres", -EINVAL, "unknown selector 'postgres'");
	parse_fails("", -EINVAL, "unknown selector ''");
	parse_fails("Name:x", -EINVAL, "unknown selector"); /* kinds are lower case */
	parse_fails("all:x", -EINVAL, "selector 'all' takes no argument");
	parse_fails("name:", -EINVAL, "selector 'name:' needs an argument after 'name:'");
	parse_fails("pid", -EINVAL, "needs an argument");
	parse_fails("cgroup:", -EINVAL, "needs an argument");
	parse_fails("pid:x", -EINVAL, "'x' is not a process id");
	parse_fails("pid:-1", -EINVAL, "'-1' is not a process id");
	parse_fails("pid:0", -ERANGE, "'0' is not a process id (1 to 2147483647)");
	parse_fails("pid:2147483648", -ERANGE, "is not a process id");
	parse_fails("exe:python3", -EINVAL, "exe:python3 is not an absolute path (name:python3 matches");
	parse_fails("cgroup:system.slice", -EINVAL, "cgroup:system.slice does not start with '/'");
	parse_fails("user:no-such-user-ramwatch", -ENOENT, "unknown user 'no-such-user-ramwatch'");
	parse_fails("user:4294967295", -ERANGE, "user id 4294967295 is out of range");
	parse_fails("user:99999999999999999999", -ERANGE, "user id 99999999999999999999 is out of range");
}

static void test_users(void **state)
{
	(void)state;
	struct selector s = parse_ok("user:root");
	assert_int_equal(s.num, 0);
	assert_string_equal(s.arg, "root"); /* formatted as written */
	selector_done(&s);

	/* a number is taken as it is, with or without a passwd entry */
	s = parse_ok("user:4294967294");
	assert_int_equal(s.num, 4294967294);
	selector_done(&s);

	struct selector_facts f = { .uid = 0 };
	assert_true(matches("user:root", &f));
	assert_true(matches("user:0", &f));
	assert_false(matches("user:1", &f));
	f.uid = 106;
	assert_false(matches("user:root", &f));
	f.uid = -1; /* not known */
	assert_false(matches("user:0", &f));
}

static void test_match_each_kind(void **state)
{
	(void)state;
	const struct selector_facts *f = &postgres;

	assert_true(matches("all", f));

	assert_true(matches("pid:4242", f));
	assert_false(matches("pid:4243", f));

	assert_true(matches("name:postgres", f));
	assert_true(matches("name:post*", f));
	assert_true(matches("name:postgre[sS]", f));
	assert_false(matches("name:postgresql", f));
	assert_false(matches("name:bin", f)); /* the basename only, not a directory */

	assert_true(matches("cmdline:postgres:*", f));
	assert_true(matches("cmdline:*checkpointer", f));
	assert_false(matches("cmdline:checkpointer", f)); /* whole string, not a substring */

	assert_true(matches("exe:/usr/lib/postgresql/16/bin/postgres", f));
	assert_true(matches("exe:/usr/lib/postgresql/*/bin/postgres", f));
	assert_false(matches("exe:/usr/lib/postgresql/16/bin/postgre", f));
	/* with FNM_PATHNAME '*' stays within one component */
	assert_false(matches("exe:/usr/lib/*/postgres", f));
	assert_true(matches("exe:/usr/lib/*/*/*/postgres", f));

	assert_true(matches("cgroup:/system.slice", f));
	assert_true(matches("cgroup:/system.slice/postgresql@16-main.service", f));
	assert_false(matches("cgroup:/user.slice", f));

	assert_true(matches("user:106", f));
	assert_false(matches("user:107", f));
}

static void test_match_name(void **state)
{
	(void)state;
	/* comm is cut at 15 bytes: the executable's name still matches */
	struct selector_facts f = { .pid = 7,
				    .comm = "postgres_export",
				    .exe = "/usr/bin/postgres_exporter",
				    .uid = 0 };
	assert_true(matches("name:postgres_exporter", &f));
	assert_true(matches("name:postgres_export", &f));
	assert_false(matches("name:postgres_exporter2", &f));

	/* a program replaced on disk still matches by its path (proc(5)) */
	f.comm = "java";
	f.exe = "/opt/jdk/bin/java (deleted)";
	assert_true(matches("name:java", &f));
	assert_true(matches("exe:/opt/jdk/bin/java", &f));
	assert_true(matches("exe:/opt/*/bin/java", &f));
	assert_false(matches("exe:/opt/jdk/bin/jav", &f));

	/* name globs do not treat '/' specially, nor does cmdline */
	f.cmdline = "python3 /srv/app/train.py --epochs 3";
	assert_true(matches("cmdline:*/app/train.py*", &f));
	assert_true(matches("cmdline:python3?/srv*", &f));

	/* kernel threads and unreadable processes: no exe, no cmdline */
	struct selector_facts k = { .pid = 2, .comm = "kthreadd", .uid = 0 };
	assert_true(matches("name:kthreadd", &k));
	assert_false(matches("exe:/usr/bin/kthreadd", &k));
	assert_false(matches("cmdline:*", &k));
	assert_false(matches("cgroup:/", &k));
	struct selector_facts none = { .uid = -1 };
	assert_false(matches("name:*", &none));
	assert_true(matches("all", &none));
}

static void test_cgroup_components(void **state)
{
	(void)state;
	struct selector_facts f = { .uid = 0 };

	f.cgroup = "/system.slice/x.service";
	assert_true(matches("cgroup:/system.slice", &f));
	assert_true(matches("cgroup:/system.slice/", &f));
	assert_true(matches("cgroup:/system.slice/x.service", &f));
	assert_true(matches("cgroup:/", &f));
	assert_false(matches("cgroup:/system", &f));
	assert_false(matches("cgroup:/system.slice/x", &f));
	assert_false(matches("cgroup:/system.slice/x.service/y", &f));

	f.cgroup = "/system.slicex";
	assert_false(matches("cgroup:/system.slice", &f));
	f.cgroup = "/system.slice";
	assert_true(matches("cgroup:/system.slice", &f));
	f.cgroup = "/";
	assert_true(matches("cgroup:/", &f));
	assert_false(matches("cgroup:/system.slice", &f));
}

static void add(struct selector_list *l, const char *s)
{
	struct selector sel = parse_ok(s);
	assert_int_equal(selector_list_add(l, &sel), 0);
	assert_null(sel.arg);
}

static void test_lists(void **state)
{
	(void)state;
	struct selector_list l = {}, copy = {};
	struct selector_facts f = postgres;

	assert_false(selector_list_match(&l, &f));
	assert_int_equal(selector_list_needs(&l), 0);

	add(&l, "pid:1");
	assert_int_equal(selector_list_needs(&l), 0);
	assert_false(selector_list_match(&l, &f));
	add(&l, "user:106");
	assert_int_equal(selector_list_needs(&l), 0);
	assert_true(selector_list_match(&l, &f));
	add(&l, "name:x");
	assert_int_equal(selector_list_needs(&l), SELECTOR_NEEDS_EXE);
	add(&l, "cmdline:x");
	assert_int_equal(selector_list_needs(&l), SELECTOR_NEEDS_EXE | SELECTOR_NEEDS_CMDLINE);
	add(&l, "cgroup:/x");
	assert_int_equal(selector_list_needs(&l),
			 SELECTOR_NEEDS_EXE | SELECTOR_NEEDS_CMDLINE | SELECTOR_NEEDS_CGROUP);

	struct selector_list exe = {};
	add(&exe, "exe:/x");
	assert_int_equal(selector_list_needs(&exe), SELECTOR_NEEDS_EXE);
	assert_false(selector_list_equal(&l, &exe));
	selector_list_clear(&exe);

	assert_int_equal(selector_list_copy(&l, &copy), 0);
	assert_int_equal(copy.n, 5);
	assert_true(selector_list_equal(&l, &copy));
	assert_ptr_not_equal(copy.v[2].arg, l.v[2].arg);
	free(copy.v[2].arg);
	copy.v[2].arg = strdup("y");
	assert_false(selector_list_equal(&l, &copy));

	selector_list_clear(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	assert_false(selector_list_equal(&l, &copy));
	selector_list_clear(&copy);
	assert_true(selector_list_equal(&l, &copy));
	assert_int_equal(selector_list_copy(&l, &copy), 0);
	assert_int_equal(copy.n, 0);
}

static void test_list_limit(void **state)
{
	(void)state;
	struct selector_list l = {};
	char s[32];

	for (unsigned i = 1; i <= RW_SELECTORS_MAX; i++) {
		snprintf(s, sizeof(s), "pid:%u", i);
		add(&l, s);
	}
	struct selector extra = parse_ok("name:one-too-many");
	assert_int_equal(selector_list_add(&l, &extra), -E2BIG);
	/* refused: the caller still owns it */
	assert_string_equal(extra.arg, "one-too-many");
	selector_done(&extra);
	assert_int_equal(l.n, RW_SELECTORS_MAX);

	struct selector_facts f = { .pid = RW_SELECTORS_MAX, .uid = 0 };
	assert_true(selector_list_match(&l, &f));
	f.pid = RW_SELECTORS_MAX + 1;
	assert_false(selector_list_match(&l, &f));
	selector_list_clear(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format), cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_users),		 cmocka_unit_test(test_match_each_kind),
		cmocka_unit_test(test_match_name),	 cmocka_unit_test(test_cgroup_components),
		cmocka_unit_test(test_lists),		 cmocka_unit_test(test_list_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
