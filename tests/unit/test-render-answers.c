/* The client's rendering of canned answers of the control socket: status,
 * processes, history, report and GPU memory; times in seconds for
 * programs.  The socket itself is tested in test-control-client.c. */
#include "control-client-testlib.h"

/* ---------------------------------------------------------------- status and processes */

static const char status_answer[] =
	"{\"version\": \"0.1.0\", \"pid\": 812, \"uptime_ms\": 3723000,"
	" \"config\": \"/etc/ramwatch/ramwatchd.conf\","
	" \"database\": {\"path\": \"/var/lib/ramwatch/ramwatch.db\", \"size\": 1258291, \"schema_version\": 3,"
	"  \"writing\": true, \"error\": null, \"queued_rows\": 0, \"dropped_rows\": 0},"
	" \"watched\": 12, \"censuses_per_minute\": 2.4, \"budget\": {\"share\": 0.02, \"used\": 0.0031},"
	" \"deferred\": 1, \"censuses\": {\"ok\": 120, \"exited\": 2, \"denied\": 0, \"error\": 0, \"light\": 0},"
	" \"last_errors\": [{\"time\": 1795960800000, \"message\": \"cannot read /proc/77/smaps: Permission denied\"}]}";

static void test_status(void **state)
{
	(void)state;
	json_t *j = parse(status_answer);
	char *text = capture_json(render_status, j);

	assert_string_equal(text, "ramwatchd 0.1.0 (pid 812), up 1h 2min\n"
				  "configuration  /etc/ramwatch/ramwatchd.conf\n"
				  "database       /var/lib/ramwatch/ramwatch.db, 1.20 MiB, schema 3, writing\n"
				  "watched        12 processes\n"
				  "censuses       2.4 per minute; 120 ok, 2 exited, 0 denied, 0 error, 0 light\n"
				  "budget         0.31% of one CPU used of 2.00% allowed (ScanBudget=)\n"
				  "deferred       1 census waiting for the budget\n"
				  "last errors    1\n"
				  "  2026-11-29 14:00:00  cannot read /proc/77/smaps: Permission denied\n");
	free(text);
	json_decref(j);

	/* an unprivileged asker gets no errors; unknown fields are "-" */
	j = parse("{\"version\": \"0.2.0\", \"database\": {\"path\": \"/db\", \"size\": null, \"error\": \"disk full\"},"
		  " \"last_errors\": []}");
	text = capture_json(render_status, j);
	assert_contains(text, "database       /db, -\n               store error: disk full\n");
	assert_contains(text, "last errors    none\n");
	free(text);
	json_decref(j);
}

static const char processes_answer[] =
	"{\"processes\": ["
	" {\"process_id\": 17, \"pid\": 4242, \"uid\": 1000, \"user\": \"ana\", \"comm\": \"python3\","
	"  \"cmdline\": \"python3 train.py --name \\\"a,b\\\"\", \"watched\": true, \"first_seen\": 1795960800000,"
	"  \"last_seen\": 1795960860500, \"exited_at\": null, \"private\": 1073741824, \"resident\": 1288490188,"
	"  \"peak_private\": 2147483648, \"peak_resident\": 2362232012,"
	"  \"cgroup\": \"/system.slice/train.service\", \"unit\": \"train.service\","
	"  \"last_census\": {\"census_id\": 99, \"time\": 1795960830000, \"trigger\": \"growth\", \"status\": \"ok\"}},"
	" {\"process_id\": 9, \"pid\": 77, \"uid\": 0, \"user\": null, \"comm\": \"old\", \"cmdline\": \"\","
	"  \"watched\": false, \"first_seen\": 1795950000000, \"last_seen\": 1795955000000,"
	"  \"exited_at\": 1795955000000, \"private\": null, \"resident\": 4096, \"peak_private\": 8192,"
	"  \"last_census\": null}],"
	" \"filtered_to_uid\": null}";

static int processes_table(const json_t *j, FILE *f)
{
	return render_processes(j, ANSWER_TABLE, f);
}

static int processes_csv(const json_t *j, FILE *f)
{
	return render_processes(j, ANSWER_CSV, f);
}

static int processes_json(const json_t *j, FILE *f)
{
	return render_processes(j, ANSWER_JSON, f);
}

static void test_processes(void **state)
{
	(void)state;
	json_t *j = parse(processes_answer);
	char *text = capture_json(processes_table, j);
	assert_string_equal(
		text,
		" PID  USER   PRIVATE  RESIDENT  PEAK PRIVATE  LAST CENSUS                   STATE                       "
		"COMMAND\n"
		"4242  ana   1.00 GiB  1.20 GiB      2.00 GiB  2026-11-29 14:00:30 (growth)  watched                     "
		"python3 train.py --name \"a,b\"\n"
		"  77  0            -  4.00 KiB      8.00 KiB  -                             exited 2026-11-29 12:23:20  "
		"old\n");
	free(text);

	text = capture_json(processes_csv, j);
	assert_string_equal(text,
			    "process_id,pid,uid,user,comm,watched,first_seen,last_seen,exited_at,private,resident,"
			    "peak_private,peak_resident,last_census_time,last_census_trigger,cmdline,cgroup,unit\n"
			    "17,4242,1000,ana,python3,true,1795960800.000,1795960860.500,,1073741824,1288490188,"
			    "2147483648,2362232012,1795960830.000,growth,\"python3 train.py --name \"\"a,b\"\"\","
			    "/system.slice/train.service,train.service\n"
			    /* an empty command line is "", apart from an unknown user */
			    "9,77,0,,old,false,1795950000.000,1795955000.000,1795955000.000,,4096,8192,,,,\"\",,\n");
	free(text);

	/* JSON for programs: the answer, times in unix seconds, other numbers as they are */
	text = capture_json(processes_json, j);
	json_t *back = parse(text);
	json_t *p = json_array_get(json_object_get(back, "processes"), 0);
	assert_true(json_is_real(json_object_get(p, "last_seen")));
	assert_true(json_real_value(json_object_get(p, "last_seen")) == 1795960860.5);
	assert_int_equal(json_integer_value(json_object_get(p, "private")), 1073741824);
	assert_true(json_real_value(json_object_get(json_object_get(p, "last_census"), "time")) == 1795960830.0);
	assert_contains(text, "\"last_seen\": 1795960860.5,");
	json_decref(back);
	free(text);
	json_decref(j);

	j = parse("{\"processes\": [], \"filtered_to_uid\": 1000}");
	text = capture_json(processes_table, j);
	assert_string_equal(text, "no processes\n");
	free(text);
	json_decref(j);
	j = parse("{\"nothing\": 1}");
	assert_int_equal(render_processes(j, ANSWER_TABLE, stdout), -EBADMSG);
	json_decref(j);
}

/* Processes by cgroup and by unit: the groups' sums, largest private
 * first, the processes of no known group in one group named null. */
static const char groups_answer[] =
	"{\"processes\": ["
	" {\"pid\": 10, \"private\": 300, \"resident\": 400, \"vram\": null,"
	"  \"cgroup\": \"/system.slice/web.service\", \"unit\": \"web.service\"},"
	" {\"pid\": 11, \"private\": 200, \"resident\": 250, \"vram\": null,"
	"  \"cgroup\": \"/box/a\", \"unit\": null},"
	" {\"pid\": 12, \"private\": 150, \"resident\": 150, \"vram\": null,"
	"  \"cgroup\": \"/system.slice/web.service\", \"unit\": \"web.service\"},"
	" {\"pid\": 13, \"private\": null, \"resident\": 8, \"watched\": false, \"cgroup\": null, \"unit\": null}]}";

static int groups_by_cgroup_table(const json_t *j, FILE *f)
{
	return render_process_groups(j, "cgroup", ANSWER_TABLE, f);
}

static int groups_by_cgroup_csv(const json_t *j, FILE *f)
{
	return render_process_groups(j, "cgroup", ANSWER_CSV, f);
}

static int groups_by_unit_json(const json_t *j, FILE *f)
{
	return render_process_groups(j, "unit", ANSWER_JSON, f);
}

static void test_process_groups(void **state)
{
	(void)state;
	json_t *j = parse(groups_answer);
	char *text = capture_json(groups_by_cgroup_table, j);
	assert_string_equal(text, "CGROUP                     PROCESSES  PRIVATE  RESIDENT  PIDS\n"
				  "/system.slice/web.service          2    450 B     550 B  10 12\n"
				  "/box/a                             1    200 B     250 B  11\n"
				  "(unknown)                          1      0 B       8 B  13\n");
	free(text);
	text = capture_json(groups_by_cgroup_csv, j);
	assert_string_equal(text, "cgroup,processes,private,resident,vram\n"
				  "/system.slice/web.service,2,450,550,0\n"
				  "/box/a,1,200,250,0\n"
				  ",1,0,8,0\n");
	free(text);
	text = capture_json(groups_by_unit_json, j);
	json_t *back = parse(text), *groups = json_object_get(back, "groups");
	assert_string_equal(json_string_value(json_object_get(back, "by")), "unit");
	assert_int_equal(json_array_size(groups), 2);
	json_t *web = json_array_get(groups, 0), *none = json_array_get(groups, 1);
	assert_string_equal(json_string_value(json_object_get(web, "unit")), "web.service");
	assert_int_equal(json_integer_value(json_object_get(web, "processes")), 2);
	assert_int_equal(json_integer_value(json_object_get(web, "private")), 450);
	assert_true(json_is_null(json_object_get(none, "unit")));
	assert_int_equal(json_integer_value(json_object_get(none, "processes")), 2);
	assert_int_equal(json_integer_value(json_object_get(none, "private")), 200);
	assert_int_equal(json_array_size(json_object_get(none, "pids")), 2);
	json_decref(back);
	free(text);
	json_decref(j);

	j = parse("{\"nothing\": 1}");
	assert_int_equal(render_process_groups(j, "cgroup", ANSWER_TABLE, stdout), -EBADMSG);
	json_decref(j);
}

/* ---------------------------------------------------------------- history */

static const char history_answer[] =
	"{\"instances\": [{\"process_id\": 17, \"pid\": 4242, \"label\": \"python3 [4242]\", \"comm\": \"python3\","
	"  \"uid\": 1000, \"start_time\": 123456, \"first_seen\": 1795960801000, \"exited_at\": null}],"
	" \"samples\": ["
	"  {\"process_id\": 17, \"time\": 1795960810000, \"resolution\": 0, \"private\": 1048576,"
	"   \"private_min\": 1000000, \"private_max\": 2097152, \"resident\": 3145728, \"resident_min\": 3000000,"
	"   \"resident_max\": 4194304, \"swap\": 0},"
	"  {\"process_id\": 17, \"time\": 1795960820000, \"resolution\": 0, \"private\": 69206016,"
	"   \"private_min\": 1048576, \"private_max\": 69206016, \"resident\": 71303168, \"resident_min\": 3145728,"
	"   \"resident_max\": 71303168, \"swap\": 0}],"
	" \"censuses\": ["
	"  {\"process_id\": 17, \"census_id\": 98, \"time\": 1795960801500, \"trigger\": \"first\", \"status\": \"ok\","
	"   \"light\": false, \"private\": 1048576, \"resident\": 3145728, \"classes\": {"
	"    \"malloc\": {\"private\": 524288, \"resident\": 524288, \"size\": 1048576, \"count\": 2},"
	"    \"images\": {\"private\": 131072, \"resident\": 2097152, \"size\": 4194304, \"count\": 30},"
	"    \"stacks\": {\"private\": 65536, \"resident\": 65536, \"size\": 8388608, \"count\": 1},"
	"    \"other\": {\"private\": 327680, \"resident\": 327680, \"size\": 327680, \"count\": 3},"
	"    \"shared\": {\"private\": 0, \"resident\": 4096, \"size\": 4096, \"count\": 1},"
	"    \"jit\": {\"private\": 4096, \"resident\": 4096, \"size\": 4096, \"count\": 1}}},"
	"  {\"process_id\": 17, \"census_id\": 99, \"time\": 1795960815200, \"trigger\": \"growth\", \"status\": \"ok\","
	"   \"light\": false, \"private\": 68157440, \"resident\": 70254592, \"classes\": {"
	"    \"other\": {\"private\": 67436544, \"resident\": 67436544, \"size\": 67436544, \"count\": 4},"
	"    \"malloc\": {\"private\": 524288, \"resident\": 524288, \"size\": 1048576, \"count\": 2}}},"
	"  {\"process_id\": 17, \"census_id\": 100, \"time\": 1795960821000, \"trigger\": \"interval\","
	"   \"status\": \"exited\", \"message\": \"process 4242 exited\", \"classes\": {}}],"
	" \"marks\": [{\"process_id\": 17, \"time\": 1795960812000, \"name\": \"training\", \"by_uid\": 1000}],"
	" \"next\": null}";

static struct history_options history_options;

static int history_render(const json_t *j, FILE *f)
{
	return render_history(j, &history_options, f);
}

static void test_history(void **state)
{
	(void)state;
	json_t *j = parse(history_answer);
	history_options = (struct history_options){ .format = ANSWER_TABLE };
	char *text = capture_json(history_render, j);
	assert_string_equal(text,
			    "python3 [4242] first seen 2026-11-29 14:00:01\n"
			    "TIME                  PRIVATE  PRIVATE MAX  RESIDENT  RESIDENT MAX\n"
			    "2026-11-29 14:00:01  census #98 (first): private 1.00 MiB, resident 3.00 MiB; malloc "
			    "512 KiB, other 320 KiB, images 128 KiB, stacks 64.0 KiB, +1 more\n"
			    "2026-11-29 14:00:10  1.00 MiB     2.00 MiB  3.00 MiB      4.00 MiB\n"
			    "2026-11-29 14:00:12  -- mark: training --\n"
			    "2026-11-29 14:00:15  census #99 (growth): private 65.0 MiB, resident 67.0 MiB; other "
			    "64.3 MiB, malloc 512 KiB\n"
			    "2026-11-29 14:00:20  66.0 MiB     66.0 MiB  68.0 MiB      68.0 MiB\n"
			    "2026-11-29 14:00:21  census #100 (interval): exited: process 4242 exited\n");
	free(text);
	/* on a terminal that allows it, the mark's line is drawn */
	history_options.decorated = true;
	text = capture_json(history_render, j);
	assert_non_null(strstr(text, "\n2026-11-29 14:00:12  ── mark: training ──\n"));
	free(text);

	/* the census lines name the classes asked for */
	const char *chosen[] = { "other", "python" };
	history_options = (struct history_options){ .format = ANSWER_TABLE, .classes = chosen, .n_classes = 2 };
	text = capture_json(history_render, j);
	assert_contains(text, "census #98 (first): private 1.00 MiB, resident 3.00 MiB; other 320 KiB, python 0 B\n");
	free(text);

	history_options = (struct history_options){ .format = ANSWER_CSV, .classes = chosen, .n_classes = 1 };
	text = capture_json(history_render, j);
	assert_string_equal(text,
			    "time,process_id,pid,kind,name,status,private,private_min,private_max,resident,"
			    "resident_min,resident_max,swap\n"
			    "1795960801.500,17,4242,census,first,ok,1048576,,,3145728,,,\n"
			    "1795960801.500,17,4242,class,other,,327680,,,327680,,,\n"
			    "1795960810.000,17,4242,sample,,,1048576,1000000,2097152,3145728,3000000,4194304,0\n"
			    "1795960812.000,17,4242,mark,training,,,,,,,,\n"
			    "1795960815.200,17,4242,census,growth,ok,68157440,,,70254592,,,\n"
			    "1795960815.200,17,4242,class,other,,67436544,,,67436544,,,\n"
			    "1795960820.000,17,4242,sample,,,69206016,1048576,69206016,71303168,3145728,71303168,0\n"
			    "1795960821.000,17,4242,census,interval,exited,,,,,,,\n");
	free(text);
	json_decref(j);

	/* two instances of one pid: each under its own heading, oldest first */
	j = parse("{\"instances\": ["
		  "  {\"process_id\": 21, \"pid\": 4242, \"label\": \"java [4242]\", \"first_seen\": 1795960900000,"
		  "   \"exited_at\": null},"
		  "  {\"process_id\": 17, \"pid\": 4242, \"label\": \"python3 [4242]\", \"first_seen\": 1795960800000,"
		  "   \"exited_at\": 1795960850000}],"
		  " \"samples\": [{\"process_id\": 21, \"time\": 1795960910000, \"private\": 1, \"private_max\": 2,"
		  "   \"resident\": 3, \"resident_max\": 4},"
		  "  {\"process_id\": 17, \"time\": 1795960810000, \"private\": 5, \"private_max\": 6,"
		  "   \"resident\": 7, \"resident_max\": 8}],"
		  " \"censuses\": [], \"marks\": []}");
	history_options = (struct history_options){ .format = ANSWER_TABLE };
	text = capture_json(history_render, j);
	assert_string_equal(text, "python3 [4242] first seen 2026-11-29 14:00:00, exited 2026-11-29 14:00:50\n"
				  "TIME                 PRIVATE  PRIVATE MAX  RESIDENT  RESIDENT MAX\n"
				  "2026-11-29 14:00:10      5 B          6 B       7 B           8 B\n"
				  "\n"
				  "java [4242] first seen 2026-11-29 14:01:40\n"
				  "TIME                 PRIVATE  PRIVATE MAX  RESIDENT  RESIDENT MAX\n"
				  "2026-11-29 14:01:50      1 B          2 B       3 B           4 B\n");
	free(text);
	json_decref(j);

	j = parse("{\"instances\": [{\"process_id\": 1, \"pid\": 1, \"label\": \"init [1]\"}],"
		  " \"samples\": [], \"censuses\": [], \"marks\": []}");
	text = capture_json(history_render, j);
	assert_string_equal(text, "init [1]\n(nothing stored in this time range)\n");
	free(text);
	json_decref(j);
}

/* Where a heap walk read a class's allocator, the census line shows its
 * memory in use beside its private, and a census between two that read
 * them says it read none; the CSV has in_use, free and returnable. */
static void test_history_in_use(void **state)
{
	(void)state;
	json_t *j = parse(history_answer);
	json_t *censuses = json_object_get(j, "censuses");
	json_t *malloc98 = json_object_get(json_object_get(json_array_get(censuses, 0), "classes"), "malloc");
	json_object_set_new(malloc98, "in_use", json_integer(393216));
	json_object_set_new(malloc98, "free", json_integer(131072));
	json_object_set_new(malloc98, "returnable", json_integer(65536));
	history_options = (struct history_options){ .format = ANSWER_TABLE };
	char *text = capture_json(history_render, j);
	assert_contains(text, "census #98 (first): private 1.00 MiB, resident 3.00 MiB; malloc 512 KiB (384 KiB in "
			      "use), other 320 KiB, images 128 KiB, stacks 64.0 KiB, +1 more\n");
	assert_contains(text, "census #99 (growth): private 65.0 MiB, resident 67.0 MiB; other 64.3 MiB, malloc "
			      "512 KiB; in use not read\n");
	/* a census that failed says why, nothing more */
	assert_contains(text, "census #100 (interval): exited: process 4242 exited\n");
	free(text);

	const char *chosen[] = { "malloc" };
	history_options = (struct history_options){ .format = ANSWER_CSV, .classes = chosen, .n_classes = 1 };
	text = capture_json(history_render, j);
	assert_contains(text, "time,process_id,pid,kind,name,status,private,private_min,private_max,resident,"
			      "resident_min,resident_max,swap,in_use,free,returnable\n");
	assert_contains(text, "1795960801.500,17,4242,class,malloc,,524288,,,524288,,,,393216,131072,65536\n");
	assert_contains(text, "1795960815.200,17,4242,class,malloc,,524288,,,524288,,,,,,\n");
	free(text);
	json_decref(j);
}

static void test_for_programs(void **state)
{
	(void)state;
	/* times are seconds; start_time (clock ticks) and addresses are not times */
	json_t *j = parse("{\"time\": 1795960801500, \"start_time\": 123456, \"start\": \"0x7f00\","
			  " \"phases\": [{\"start\": 1795960800000, \"end\": null, \"peak_private\": 5}],"
			  " \"uptime_ms\": 3600000}");
	json_t *s = answer_times_in_seconds(j);
	assert_true(json_real_value(json_object_get(s, "time")) == 1795960801.5);
	assert_int_equal(json_integer_value(json_object_get(s, "start_time")), 123456);
	assert_string_equal(json_string_value(json_object_get(s, "start")), "0x7f00");
	json_t *phase = json_array_get(json_object_get(s, "phases"), 0);
	assert_true(json_real_value(json_object_get(phase, "start")) == 1795960800.0);
	assert_true(json_is_null(json_object_get(phase, "end")));
	assert_int_equal(json_integer_value(json_object_get(phase, "peak_private")), 5);
	assert_int_equal(json_integer_value(json_object_get(s, "uptime_ms")), 3600000);
	json_decref(s);
	json_decref(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *fields[] = { "plain", "a,b", "say \"hi\"", "two\nlines", " padded", "", NULL };
	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		text_csv_write_cstr(f, fields[i]);
		fputc('|', f);
	}
	answer_csv_time(f, true, 1500);
	answer_csv_time(f, false, 1500);
	answer_csv_time(f, true, -1500);
	fclose(f);
	/* an empty text is "", apart from a NULL's empty field */
	assert_string_equal(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\" padded\"|\"\"||1.500-1.500");
	free(buf);

	assert_int_equal(answer_format_from_name("csv"), ANSWER_CSV);
	assert_int_equal(answer_format_from_name("memtrace"), ANSWER_MEMTRACE);
	assert_int_equal(answer_format_from_name("yaml"), -1);
}

static void test_region_events(void **state)
{
	(void)state;
	struct trace_region_event *v = NULL;
	struct error err;
	size_t n;
	json_t *j = parse("{\"instance\": {}, \"events\": ["
			  " {\"time\": 10, \"census_id\": 98, \"kind\": \"appeared\", \"start\": \"0x7f0000000000\","
			  "  \"class\": \"other\", \"path\": null, \"inode\": 0, \"size\": 67108864, \"size_before\": 0,"
			  "  \"private\": 67108864, \"private_before\": 0, \"resident\": 67108864, \"resident_before\": 0},"
			  " {\"time\": 20, \"census_id\": 99, \"kind\": \"shrank\", \"start\": \"0x1000\", \"class\": \"malloc\","
			  "  \"size\": 4096, \"size_before\": 8192, \"resident\": null, \"resident_before\": null}],"
			  " \"next\": null}");
	assert_int_equal(answer_region_events(j, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, REGION_APPEARED);
	assert_int_equal(v[0].start, 0x7f0000000000ull);
	assert_string_equal(v[0].cls, "other");
	assert_int_equal(v[0].resident, 67108864);
	assert_int_equal(v[1].kind, REGION_SHRANK);
	assert_int_equal(v[1].size_before, 8192);
	assert_int_equal(v[1].resident, 0); /* a light census: not known */
	free(v);
	json_decref(j);

	static const struct {
		const char *json, *says;
	} bad[] = {
		{ "{}", "no \"events\" array" },
		{ "{\"events\": [{\"time\": 1, \"kind\": \"moved\", \"start\": \"0x1\"}]}", "events[0].kind" },
		{ "{\"events\": [{\"kind\": \"grew\", \"start\": \"0x1\"}]}", "events[0].time" },
		{ "{\"events\": [{\"time\": 1, \"kind\": \"grew\", \"start\": \"0xzz\"}]}", "events[0].start" },
		{ "{\"events\": [{\"time\": 1, \"kind\": \"grew\", \"start\": \"0x1\", \"size\": -4}]}", "events[0].size" },
		{ "{\"events\": [{\"time\": 1, \"kind\": \"grew\", \"start\": \"0x1\", \"resident\": \"4\"}]}",
		  "events[0].resident" },
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		j = parse(bad[i].json);
		v = NULL;
		assert_int_equal(answer_region_events(j, &v, &n, &err), -EBADMSG);
		assert_null(v);
		assert_contains(err.message, bad[i].says);
		json_decref(j);
	}
}

/* ---------------------------------------------------------------- report */

static json_t *stored_census(void)
{
	struct scan_options o = { .top = 20 };
	struct error e;
	struct census *c = NULL;
	char smaps[4096], status[4096];
	snprintf(smaps, sizeof(smaps), "%s", fixture("smaps/c-shapes.smaps"));
	snprintf(status, sizeof(status), "%s", fixture("smaps/c-shapes.status"));
	if (scan_smaps_file(smaps, status, &o, &c, &e) < 0)
		fail_msg("%s", e.message);
	c->taken_at_ms = INT64_C(1795960815200);
	json_t *j = census_to_json(c, false);
	census_free(c);
	json_object_set_new(j, "census_id", json_integer(99));
	json_object_set_new(j, "trigger", json_string("growth"));
	json_object_set_new(j, "status", json_string("ok"));
	return j;
}

static const char report_answer[] =
	"{\"process\": {\"process_id\": 17, \"pid\": 4242, \"uid\": 1000, \"user\": \"ana\", \"comm\": \"python3\","
	"  \"exe\": \"/usr/bin/python3\", \"cmdline\": \"python3 train.py\", \"watched\": true,"
	"  \"started_at\": 1795960800000, \"first_seen\": 1795960801000, \"last_seen\": 1795961000000,"
	"  \"exited_at\": null, \"private\": 1073741824, \"resident\": 1288490188},"
	" \"peak\": {\"private\": 2147483648, \"time\": 1795960900000, \"resident\": 2362232012,"
	"  \"resident_time\": 1795960901000},"
	" \"phases\": ["
	"  {\"name\": \"(start)\", \"start\": 1795960801000, \"end\": 1795960812000, \"peak_private\": 2097152,"
	"   \"peak_time\": 1795960810000, \"peak_resident\": 4194304, \"private_at_start\": 1048576,"
	"   \"private_at_end\": 2097152},"
	"  {\"name\": \"training\", \"start\": 1795960812000, \"end\": 1795961000000, \"peak_private\": 2147483648,"
	"   \"peak_time\": 1795960900000, \"peak_resident\": 2362232012, \"private_at_start\": 2097152,"
	"   \"private_at_end\": 1073741824}],"
	" \"trend\": ["
	"  {\"census_id\": 98, \"time\": 1795960801500, \"trigger\": \"first\", \"status\": \"ok\","
	"   \"private\": 1048576, \"resident\": 3145728},"
	"  {\"census_id\": 97, \"time\": 1795960805000, \"trigger\": \"interval\", \"status\": \"denied\","
	"   \"private\": null, \"resident\": null},"
	"  {\"census_id\": 99, \"time\": 1795960815200, \"trigger\": \"growth\", \"status\": \"ok\","
	"   \"private\": 68157440, \"resident\": 70254592}],"
	" \"since_previous\": {\"previous_census_id\": 98, \"previous_time\": 1795960801500,"
	"  \"classes\": [{\"class\": \"other\", \"private_before\": 327680, \"private\": 67436544, \"change\": 67108864},"
	"              {\"class\": \"malloc\", \"private_before\": 524288, \"private\": 524288, \"change\": 0},"
	"              {\"class\": \"stacks\", \"private_before\": 65536, \"private\": 0, \"change\": -65536}],"
	"  \"new_files\": [{\"path\": \"/data/model.bin\", \"kind\": \"data\", \"size\": 104857600,"
	"                   \"resident\": 1048576, \"private\": 0}],"
	"  \"gone_files\": [],"
	"  \"region_events\": {\"appeared\": 3, \"disappeared\": 1, \"grew\": 2, \"shrank\": 0}}}";

static void test_report(void **state)
{
	(void)state;
	json_t *j = parse(report_answer);
	json_object_set_new(j, "last_census", stored_census());
	char *text = capture_json(render_report, j);

	assert_contains(text, "# Memory report: python3 (pid 4242)\n\nCommand: `python3 train.py`  \n");
	assert_contains(text, "User: ana (uid 1000)  \nStarted: 2026-11-29 14:00:00  \n");
	assert_contains(text, "Last seen: 2026-11-29 14:03:20 (still watched)\n");
	/* the peak and when */
	assert_contains(text, "## Peak\n\nPeak private memory **2.00 GiB** at 2026-11-29 14:01:40; peak resident "
			      "2.20 GiB at 2026-11-29 14:01:41. Last: private 1.00 GiB, resident 1.20 GiB.\n");
	/* peaks by phase */
	assert_contains(text, "## Peaks by phase\n\n| phase | from | to | peak private | at | peak resident |");
	assert_contains(text, "| (start) | 2026-11-29 14:00:01 | 2026-11-29 14:00:12 | 2.00 MiB | 2026-11-29 14:00:10 "
			      "| 4.00 MiB | 1.00 MiB | 2.00 MiB | +1.00 MiB |\n");
	assert_contains(text, "| training | 2026-11-29 14:00:12 | 2026-11-29 14:03:20 | 2.00 GiB | 2026-11-29 14:01:40 "
			      "| 2.20 GiB | 2.00 MiB | 1.00 GiB | +1.00 GiB |\n");
	/* the last census as ramwatch scan --markdown prints it */
	assert_contains(text, "## The last census\n\nCensus #99 (growth) at 2026-11-29 14:00:15.\n\n## Memory of ");
	assert_contains(text, "### Memory by class");
	assert_contains(text, "### Largest regions");
	assert_contains(text, "### Mapped files and libraries");
	/* the trend, a census that could not read memory included */
	assert_contains(text, "## RAM after each census\n\n| census | time | trigger | private | resident | private "
			      "since the first |\n|---|---|---|---:|---:|---:|\n"
			      "| #98 | 2026-11-29 14:00:01 | first | 1.00 MiB | 3.00 MiB | 0 B |\n"
			      "| #97 | 2026-11-29 14:00:05 | interval (denied) | - | - | - |\n"
			      "| #99 | 2026-11-29 14:00:15 | growth | 65.0 MiB | 67.0 MiB | +64.0 MiB |\n");
	assert_contains(text, "Change from the first census to the last: private +64.0 MiB, resident +64.0 MiB.\n");
	/* what is new since the previous census */
	assert_contains(text, "## New since the previous census\n\nFrom census #98 (2026-11-29 14:00:01) to census "
			      "#99.\n\nClasses that changed, largest change first:\n\n");
	assert_contains(text, "| other | 320 KiB | 64.3 MiB | +64.0 MiB |\n| stacks | 64.0 KiB | 0 B | -64.0 KiB |\n");
	assert_true(strstr(text, "| malloc | 512 KiB |") == NULL); /* unchanged: left out */
	assert_contains(text, "Newly mapped files:\n\n| path | kind | size | resident | private |\n"
			      "|---|---|---:|---:|---:|\n| /data/model.bin | data | 100 MiB | 1.00 MiB | 0 B |\n");
	assert_true(strstr(text, "No longer mapped") == NULL);
	assert_contains(text, "Regions between the two censuses: 3 appeared, 1 disappeared, 2 grew, 0 shrank");
	free(text);

	/* one census only: nothing to compare, said so */
	json_object_set_new(j, "since_previous", json_null());
	json_object_set_new(j, "last_census", json_null());
	text = capture_json(render_report, j);
	assert_contains(text, "## The last census\n\nNo census of this process is stored.\n");
	assert_contains(text, "There is no earlier census to compare the last one with.\n");
	free(text);
	json_decref(j);

	j = parse("{\"peak\": {}}");
	assert_int_equal(render_report(j, stdout), -EBADMSG);
	json_decref(j);
}

/* The report's in use or kept: the trend gets in use and free where a
 * census read them; each class that grew says whether the program holds
 * the growth or its allocator keeps it, with the censuses that show it,
 * and a slow rise of in use is flagged with its rate. */
static void test_report_in_use_or_kept(void **state)
{
	(void)state;
	json_t *j = parse(report_answer);
	json_t *trend = json_object_get(j, "trend");
	json_object_set_new(json_array_get(trend, 0), "in_use", json_integer(786432));
	json_object_set_new(json_array_get(trend, 0), "free", json_integer(262144));
	json_object_set_new(json_array_get(trend, 2), "in_use", json_null());
	json_object_set_new(
		j, "in_use_or_kept",
		parse("[{\"class\": \"malloc\", \"censuses\": 13, \"growth\": \"held\","
		      "  \"first\": {\"census_id\": 98, \"time\": 1795960801500, \"private\": 104857600,"
		      "   \"in_use\": 62914560, \"free\": 31457280, \"unknown\": 0, \"returnable\": 8388608},"
		      "  \"last\": {\"census_id\": 140, \"time\": 1795971601500, \"private\": 155189248,"
		      "   \"in_use\": 113246208, \"free\": 31457280, \"unknown\": 0, \"returnable\": 8388608},"
		      "  \"shown_by\": [{\"census_id\": 130, \"time\": 1795969801500},"
		      "                {\"census_id\": 140, \"time\": 1795971601500}],"
		      "  \"shown_by_count\": 12,"
		      "  \"slow_rise\": {\"flagged\": true, \"first\": {\"census_id\": 120}, \"last\": {\"census_id\": 140},"
		      "   \"rises\": 7, \"steps\": 7, \"span_ms\": 6300000, \"change\": 29360128,"
		      "   \"bytes_per_hour\": 16777216},"
		      "  \"how\": \"glibc 2.36: 1 arena\"},"
		      " {\"class\": \"python\", \"censuses\": 2, \"growth\": \"kept\","
		      "  \"first\": {\"census_id\": 98, \"time\": 1795960801500, \"private\": 104857600,"
		      "   \"in_use\": 52428800, \"free\": 41943040, \"unknown\": 0, \"returnable\": 0},"
		      "  \"last\": {\"census_id\": 99, \"time\": 1795960815200, \"private\": 419430400,"
		      "   \"in_use\": 73400320, \"free\": 335544320, \"unknown\": 0, \"returnable\": 268435456},"
		      "  \"shown_by\": [{\"census_id\": 99, \"time\": 1795960815200}], \"shown_by_count\": 1,"
		      "  \"slow_rise\": null, \"how\": \"pymalloc (CPython 3.11): 400 arenas\"},"
		      " {\"class\": \"runtime_heap\", \"censuses\": 3, \"growth\": \"none\","
		      "  \"first\": {\"census_id\": 98}, \"last\": {\"census_id\": 99}, \"shown_by\": [],"
		      "  \"shown_by_count\": 0, \"slow_rise\": null, \"how\": null}]"));
	json_object_set_new(j, "last_census", stored_census());
	char *text = capture_json(render_report, j);

	assert_contains(text, "| census | time | trigger | private | resident | private since the first | in use | "
			      "free |\n");
	assert_contains(text, "| #98 | 2026-11-29 14:00:01 | first | 1.00 MiB | 3.00 MiB | 0 B | 768 KiB | 256 KiB |\n");
	assert_contains(text, "| #99 | 2026-11-29 14:00:15 | growth | 65.0 MiB | 67.0 MiB | +64.0 MiB | - | - |\n");
	assert_contains(text, "\n## In use or kept\n\n");
	assert_contains(text, "\n- **malloc**, from census #98 to #140, grew by 48.0 MiB (in use +48.0 MiB, free 0 B): held "
			      "by the program, a leak candidate. Memory in use rose at census #130 (2026-11-29 16:30:01), "
			      "#140 (2026-11-29 17:00:01) (the last 2 of 12). **A slow, steady rise of memory in use**: it "
			      "rose at 7 of the 7 censuses after #120 up to #140, by +28.0 MiB over 1h 45min (16.0 MiB an "
			      "hour): a leak candidate that no single growth shows.\n");
	assert_contains(text, "\n- **python**, from census #98 to #99, grew by 300 MiB (in use +20.0 MiB, free +280 MiB): "
			      "kept by pymalloc (fragmentation or caching), 256 MiB of its free memory returnable: "
			      "gc.collect()");
	assert_contains(text, "Free memory rose at census #99 (2026-11-29 14:00:15).\n");
	/* a class that did not grow is not listed */
	assert_null(strstr(text, "**runtime_heap**"));
	free(text);

	/* no census read an allocator: no section, and the trend as it was */
	json_object_del(j, "in_use_or_kept");
	json_object_set_new(json_array_get(trend, 0), "in_use", json_null());
	text = capture_json(render_report, j);
	assert_null(strstr(text, "In use or kept"));
	assert_contains(text, "| census | time | trigger | private | resident | private since the first |\n");
	free(text);
	json_decref(j);
}

/* ---------------------------------------------------------------- GPU memory */

/* Where a process holds GPU memory, the lists get columns for it (and the
 * report lines); where none does, they stay as above. */
static void test_vram(void **state)
{
	(void)state;
	json_t *j = parse("{\"processes\": ["
			  " {\"process_id\": 17, \"pid\": 4242, \"uid\": 1000, \"user\": \"ana\", \"comm\": \"python3\","
			  "  \"cmdline\": \"python3 serve.py\", \"watched\": true, \"first_seen\": 1795960800000,"
			  "  \"last_seen\": 1795960860500, \"exited_at\": null, \"private\": 1073741824,"
			  "  \"resident\": 1288490188, \"peak_private\": 2147483648, \"peak_resident\": 2362232012,"
			  "  \"vram\": 3221225472, \"peak_vram\": 4294967296, \"last_census\": null},"
			  " {\"process_id\": 9, \"pid\": 77, \"uid\": 0, \"user\": \"root\", \"comm\": \"bash\","
			  "  \"cmdline\": \"bash\", \"watched\": true, \"first_seen\": 1795960800000,"
			  "  \"last_seen\": 1795960860500, \"exited_at\": null, \"private\": 4096, \"resident\": 8192,"
			  "  \"peak_private\": 4096, \"peak_resident\": 8192, \"vram\": null, \"peak_vram\": 0,"
			  "  \"last_census\": null}], \"filtered_to_uid\": null}");
	char *text = capture_json(processes_table, j);
	assert_string_equal(text, " PID  USER   PRIVATE  RESIDENT  PEAK PRIVATE      VRAM  LAST CENSUS  STATE    COMMAND\n"
				  "4242  ana   1.00 GiB  1.20 GiB      2.00 GiB  3.00 GiB  -            watched  python3 serve.py\n"
				  "  77  root  4.00 KiB  8.00 KiB      4.00 KiB         -  -            watched  bash\n");
	free(text);
	text = capture_json(processes_csv, j);
	assert_contains(text, "peak_private,peak_resident,vram,peak_vram,last_census_time,");
	assert_contains(text, ",2147483648,2362232012,3221225472,4294967296,,,python3 serve.py,,\n");
	assert_contains(text, ",4096,8192,,0,,,bash,,\n");
	free(text);
	json_decref(j);

	/* history: the columns, the census's GPU memory */
	j = parse("{\"instances\": [{\"process_id\": 17, \"pid\": 4242, \"label\": \"python3 [4242]\"}],"
		  " \"samples\": ["
		  "  {\"process_id\": 17, \"time\": 1795960810000, \"private\": 1, \"private_min\": 1, \"private_max\": 2,"
		  "   \"resident\": 3, \"resident_min\": 3, \"resident_max\": 4, \"swap\": 0, \"vram\": null,"
		  "   \"vram_max\": null},"
		  "  {\"process_id\": 17, \"time\": 1795960820000, \"private\": 1, \"private_min\": 1, \"private_max\": 2,"
		  "   \"resident\": 3, \"resident_min\": 3, \"resident_max\": 4, \"swap\": 0, \"vram\": 1073741824,"
		  "   \"vram_max\": 2147483648}],"
		  " \"censuses\": [{\"process_id\": 17, \"census_id\": 5, \"time\": 1795960815000, \"trigger\": \"growth\","
		  "   \"status\": \"ok\", \"private\": 1, \"resident\": 3, \"vram\": 2147483648, \"classes\": {}}],"
		  " \"marks\": []}");
	history_options = (struct history_options){ .format = ANSWER_TABLE };
	text = capture_json(history_render, j);
	assert_string_equal(text, "python3 [4242]\n"
				  "TIME                 PRIVATE  PRIVATE MAX  RESIDENT  RESIDENT MAX      VRAM  VRAM MAX\n"
				  "2026-11-29 14:00:10      1 B          2 B       3 B           4 B         -         -\n"
				  "2026-11-29 14:00:15  census #5 (growth): private 1 B, resident 3 B, VRAM 2.00 GiB\n"
				  "2026-11-29 14:00:20      1 B          2 B       3 B           4 B  1.00 GiB  2.00 GiB\n");
	free(text);
	history_options = (struct history_options){ .format = ANSWER_CSV };
	text = capture_json(history_render, j);
	assert_string_equal(text, "time,process_id,pid,kind,name,status,private,private_min,private_max,resident,"
				  "resident_min,resident_max,swap,vram,vram_max\n"
				  "1795960810.000,17,4242,sample,,,1,1,2,3,3,4,0,,\n"
				  "1795960815.000,17,4242,census,growth,ok,1,,,3,,,,2147483648,\n"
				  "1795960820.000,17,4242,sample,,,1,1,2,3,3,4,0,1073741824,2147483648\n");
	free(text);
	json_decref(j);

	/* the report: the peak and when, by phase, by census */
	j = parse("{\"process\": {\"pid\": 4242, \"comm\": \"python3\", \"private\": 1, \"resident\": 2,"
		  "  \"vram\": 1073741824},"
		  " \"peak\": {\"private\": 1, \"time\": 1795960810000, \"resident\": 2, \"resident_time\": 1795960810000,"
		  "  \"vram\": 2147483648, \"vram_time\": 1795960820000},"
		  " \"phases\": [{\"name\": \"(start)\", \"start\": 1795960800000, \"end\": 1795960830000,"
		  "  \"peak_private\": 1, \"peak_time\": 1795960810000, \"peak_resident\": 2, \"private_at_start\": 1,"
		  "  \"private_at_end\": 1, \"peak_vram\": 2147483648}],"
		  " \"last_census\": null,"
		  " \"trend\": [{\"census_id\": 5, \"time\": 1795960815000, \"trigger\": \"growth\", \"status\": \"ok\","
		  "  \"private\": 1, \"resident\": 2, \"vram\": 2147483648}],"
		  " \"since_previous\": null}");
	text = capture_json(render_report, j);
	assert_contains(text, "Peak GPU memory (VRAM) **2.00 GiB** at 2026-11-29 14:00:20. Last: 1.00 GiB.\n");
	assert_contains(text, "| at end | change | peak VRAM |\n");
	assert_contains(text, "| 1 B | 1 B | 0 B | 2.00 GiB |\n");
	assert_contains(text, "| private since the first | VRAM |\n");
	assert_contains(text, "| #5 | 2026-11-29 14:00:15 | growth | 1 B | 2 B | 0 B | 2.00 GiB |\n");
	free(text);
	/* none: as before */
	json_object_set_new(json_object_get(j, "peak"), "vram", json_null());
	json_object_set_new(json_array_get(json_object_get(j, "phases"), 0), "peak_vram", json_null());
	json_object_set_new(json_array_get(json_object_get(j, "trend"), 0), "vram", json_null());
	text = capture_json(render_report, j);
	assert_true(strstr(text, "VRAM") == NULL);
	free(text);
	json_decref(j);
}

/* Every output format has the name --format takes. */
static void test_format_names(void **state)
{
	(void)state;
	assert_enum_names("format", _ANSWER_FORMAT_MAX, answer_format_name, answer_format_from_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test_setup(test_status, set_zone),
		cmocka_unit_test_setup(test_processes, set_zone),
		cmocka_unit_test(test_process_groups),
		cmocka_unit_test_setup(test_history, set_zone),
		cmocka_unit_test_setup(test_history_in_use, set_zone),
		cmocka_unit_test(test_for_programs),
		cmocka_unit_test(test_region_events),
		cmocka_unit_test_setup(test_report, set_zone),
		cmocka_unit_test_setup(test_report_in_use_or_kept, set_zone),
		cmocka_unit_test_setup(test_vram, set_zone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
