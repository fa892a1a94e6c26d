/* The metrics exposition from fixed inputs: the exact text, label values
 * that try to break out of their quotes, grouping by comm, unit and user,
 * light censuses left out of the class family, the group label's length
 * limit, the GPU families (only with a GPU snapshot); and the atomic
 * textfile write. */
#include "testlib.h"

#include <errno.h>
#include <sys/stat.h>

#include "census.h"
#include "cgroup-unit.h"
#include "export-text.h"
#include "export.h"
#include "limits.h"
#include "text.h"

static struct export_classes classes_of(bool light, const uint64_t priv[_CLASS_MAX], const uint64_t res[_CLASS_MAX],
					uint32_t present)
{
	struct export_classes c = { .ok = true, .light = light, .present = present };
	memcpy(c.private, priv, sizeof(c.private));
	memcpy(c.resident, res, sizeof(c.resident));
	return c;
}

static const struct export_daemon daemon_counters = {
	.version = "0.1.0",
	.censuses = { [CENSUS_OK] = 7, [CENSUS_EXITED] = 1, [CENSUS_DENIED] = 0, [CENSUS_ERROR] = 2 },
	.census_cpu_us = 1234567,
	.deferred = 3,
		.repeated = 5,
	.watched = 4,
	.sample_round_us_max = 12345,
	.store_dropped_rows = 0,
	.store_writing = true,
	.export_errors = 0,
};

static char *build(const struct export_process *p, size_t n, enum export_group_by by)
{
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(export_text_build(&daemon_counters, p, n, by, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

/* Asserts that text holds line as a whole line. */
static void assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line\n  %s\nin:\n%s", line, text);
}

static void assert_no_line_with(const char *text, const char *part)
{
	if (strstr(text, part))
		fail_msg("unexpected \"%s\" in:\n%s", part, text);
}

/* The fixed set: two python3 (one full census, one light) of ana, a
 * postgres of its own user, a sleep without a census yet. */
static struct export_classes python_full, python_light, postgres_full;

static void fixed_processes(struct export_process p[4])
{
	uint64_t priv[_CLASS_MAX] = { 0 }, res[_CLASS_MAX] = { 0 };

	priv[CLASS_MALLOC] = 100, res[CLASS_MALLOC] = 120;
	priv[CLASS_PYTHON] = 150, res[CLASS_PYTHON] = 160;
	res[CLASS_IMAGES] = 200;
	python_full = classes_of(false, priv, res, 1u << CLASS_MALLOC | 1u << CLASS_PYTHON | 1u << CLASS_IMAGES);
	/* a heap walk read its malloc class (postgres's did not) */
	python_full.heap = 1u << CLASS_MALLOC;
	python_full.in_use[CLASS_MALLOC] = 70;
	python_full.free_kept[CLASS_MALLOC] = 25;
	python_full.returnable[CLASS_MALLOC] = 8;
	memset(priv, 0, sizeof(priv));
	memset(res, 0, sizeof(res));
	/* a light census: sizes known, memory per class zero */
	python_light = classes_of(true, priv, res, 1u << CLASS_OTHER);
	priv[CLASS_MALLOC] = 10, res[CLASS_MALLOC] = 12;
	res[CLASS_SHARED] = 30;
	postgres_full = classes_of(false, priv, res, 1u << CLASS_MALLOC | 1u << CLASS_SHARED);

	const char *scope = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope";
	p[0] = (struct export_process){ .comm = "python3", .uid = 1000, .user = "ana", .cgroup = scope,
					.private = 300, .resident = 500, .swap = 10, .peak_private = 400,
					.classes = &python_full };
	p[1] = (struct export_process){ .comm = "python3", .uid = 1000, .user = "ana", .cgroup = scope,
					.private = 1000, .resident = 2000, .swap = 0, .peak_private = 5000,
					.classes = &python_light };
	p[2] = (struct export_process){ .comm = "postgres", .uid = 113, .user = "postgres",
					.cgroup = "/system.slice/postgresql@15-main.service", .private = 50,
					.resident = 70, .swap = 5, .peak_private = 60, .classes = &postgres_full };
	p[3] = (struct export_process){ .comm = "sleep", .uid = 0, .user = "root", .cgroup = "/init.scope",
					.private = 1, .resident = 2, .swap = 0, .peak_private = 1, .classes = NULL };
}

static const char expected_by_comm[] =
	"# HELP ramwatch_memory_bytes Memory of the group's processes in each class, at each process's last full "
	"census.\n"
	"# TYPE ramwatch_memory_bytes gauge\n"
	"ramwatch_memory_bytes{group=\"postgres\",class=\"shared\",kind=\"private\"} 0\n"
	"ramwatch_memory_bytes{group=\"postgres\",class=\"shared\",kind=\"resident\"} 30\n"
	"ramwatch_memory_bytes{group=\"postgres\",class=\"malloc\",kind=\"private\"} 10\n"
	"ramwatch_memory_bytes{group=\"postgres\",class=\"malloc\",kind=\"resident\"} 12\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"images\",kind=\"private\"} 0\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"images\",kind=\"resident\"} 200\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"malloc\",kind=\"private\"} 100\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"malloc\",kind=\"resident\"} 120\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"python\",kind=\"private\"} 150\n"
	"ramwatch_memory_bytes{group=\"python3\",class=\"python\",kind=\"resident\"} 160\n"
	"# HELP ramwatch_allocator_bytes Of each class's memory, what its allocator counts in use by the program, "
	"free (kept for later) and returnable (of free, whole pages it could give back), summed over the group's "
	"processes at the last census of each that read them; only the classes of which every process's census "
	"read them.\n"
	"# TYPE ramwatch_allocator_bytes gauge\n"
	"ramwatch_allocator_bytes{group=\"python3\",class=\"malloc\",kind=\"in_use\"} 70\n"
	"ramwatch_allocator_bytes{group=\"python3\",class=\"malloc\",kind=\"free\"} 25\n"
	"ramwatch_allocator_bytes{group=\"python3\",class=\"malloc\",kind=\"returnable\"} 8\n"
	"# HELP ramwatch_process_memory_bytes Memory of the group's processes at their last sample of the fast "
	"tier.\n"
	"# TYPE ramwatch_process_memory_bytes gauge\n"
	"ramwatch_process_memory_bytes{group=\"postgres\",kind=\"private\"} 50\n"
	"ramwatch_process_memory_bytes{group=\"postgres\",kind=\"resident\"} 70\n"
	"ramwatch_process_memory_bytes{group=\"postgres\",kind=\"swap\"} 5\n"
	"ramwatch_process_memory_bytes{group=\"python3\",kind=\"private\"} 1300\n"
	"ramwatch_process_memory_bytes{group=\"python3\",kind=\"resident\"} 2500\n"
	"ramwatch_process_memory_bytes{group=\"python3\",kind=\"swap\"} 10\n"
	"ramwatch_process_memory_bytes{group=\"sleep\",kind=\"private\"} 1\n"
	"ramwatch_process_memory_bytes{group=\"sleep\",kind=\"resident\"} 2\n"
	"ramwatch_process_memory_bytes{group=\"sleep\",kind=\"swap\"} 0\n"
	"# HELP ramwatch_peak_private_bytes The largest peak private memory of the group's processes.\n"
	"# TYPE ramwatch_peak_private_bytes gauge\n"
	"ramwatch_peak_private_bytes{group=\"postgres\"} 60\n"
	"ramwatch_peak_private_bytes{group=\"python3\"} 5000\n"
	"ramwatch_peak_private_bytes{group=\"sleep\"} 1\n"
	"# HELP ramwatch_processes Processes of the group that ramwatchd watches.\n"
	"# TYPE ramwatch_processes gauge\n"
	"ramwatch_processes{group=\"postgres\"} 1\n"
	"ramwatch_processes{group=\"python3\"} 2\n"
	"ramwatch_processes{group=\"sleep\"} 1\n"
	"# HELP ramwatch_light_census_processes Processes of the group whose last census was light, so not in "
	"ramwatch_memory_bytes.\n"
	"# TYPE ramwatch_light_census_processes gauge\n"
	"ramwatch_light_census_processes{group=\"postgres\"} 0\n"
	"ramwatch_light_census_processes{group=\"python3\"} 1\n"
	"ramwatch_light_census_processes{group=\"sleep\"} 0\n"
	"# HELP ramwatch_censuses_total Censuses taken, by status.\n"
	"# TYPE ramwatch_censuses_total counter\n"
	"ramwatch_censuses_total{status=\"ok\"} 7\n"
	"ramwatch_censuses_total{status=\"exited\"} 1\n"
	"ramwatch_censuses_total{status=\"denied\"} 0\n"
	"ramwatch_censuses_total{status=\"error\"} 2\n"
	"# HELP ramwatch_census_seconds_total CPU time spent taking censuses.\n"
	"# TYPE ramwatch_census_seconds_total counter\n"
	"ramwatch_census_seconds_total 1.234567\n"
	"# HELP ramwatch_deferred_censuses_total Censuses that waited for the census budget.\n"
	"# TYPE ramwatch_deferred_censuses_total counter\n"
	"ramwatch_deferred_censuses_total 3\n"
	"# HELP ramwatch_repeated_censuses_total Censuses that found nothing changed since the last full census (of those ok).\n"
	"# TYPE ramwatch_repeated_censuses_total counter\n"
	"ramwatch_repeated_censuses_total 5\n"
	"# HELP ramwatch_watched_processes Processes ramwatchd watches.\n"
	"# TYPE ramwatch_watched_processes gauge\n"
	"ramwatch_watched_processes 4\n"
	"# HELP ramwatch_sample_round_seconds_max The longest sample round since the start: every watched process "
	"read, and the censuses due.\n"
	"# TYPE ramwatch_sample_round_seconds_max gauge\n"
	"ramwatch_sample_round_seconds_max 0.012345\n"
	"# HELP ramwatch_store_dropped_rows_total Rows dropped because the store could not be written for too "
	"long.\n"
	"# TYPE ramwatch_store_dropped_rows_total counter\n"
	"ramwatch_store_dropped_rows_total 0\n"
	"# HELP ramwatch_store_writing 1 while the store is written, 0 while writing it fails.\n"
	"# TYPE ramwatch_store_writing gauge\n"
	"ramwatch_store_writing 1\n"
	"# HELP ramwatch_database_corruptions_total Damaged database files found, moved aside and replaced by a new "
	"one.\n"
	"# TYPE ramwatch_database_corruptions_total counter\n"
	"ramwatch_database_corruptions_total 0\n"
	"# HELP ramwatch_export_errors_total Writes of the metrics textfile that failed.\n"
	"# TYPE ramwatch_export_errors_total counter\n"
	"ramwatch_export_errors_total 0\n"
	"# HELP ramwatch_build_info The version of ramwatchd; always 1.\n"
	"# TYPE ramwatch_build_info gauge\n"
	"ramwatch_build_info{version=\"0.1.0\"} 1\n";

static void test_exact_text(void **state)
{
	(void)state;
	struct export_process p[4], q[4];
	fixed_processes(p);

	char *text = build(p, 4, EXPORT_GROUP_COMM);
	assert_string_equal(text, expected_by_comm);

	/* the order of the processes does not matter */
	for (size_t i = 0; i < 4; i++)
		q[i] = p[3 - i];
	char *again = build(q, 4, EXPORT_GROUP_COMM);
	assert_string_equal(again, text);
	free(again);
	free(text);
}

/* No processes (a user with none watched): every family still has its
 * HELP and TYPE, and the daemon-wide ones their samples. */
static void test_no_processes(void **state)
{
	(void)state;
	char *text = build(NULL, 0, EXPORT_GROUP_COMM);
	assert_line(text, "# TYPE ramwatch_memory_bytes gauge");
	assert_line(text, "# TYPE ramwatch_light_census_processes gauge");
	assert_no_line_with(text, "group=");
	assert_line(text, "ramwatch_watched_processes 4");
	assert_line(text, "ramwatch_build_info{version=\"0.1.0\"} 1");
	free(text);
}

static void test_group_by_unit_and_user(void **state)
{
	(void)state;
	struct export_process p[4];
	fixed_processes(p);

	char *text = build(p, 4, EXPORT_GROUP_UNIT);
	assert_line(text, "ramwatch_processes{group=\"init.scope\"} 1");
	assert_line(text, "ramwatch_processes{group=\"postgresql@15-main.service\"} 1");
	assert_line(text, "ramwatch_processes{group=\"run-r1.scope\"} 2");
	assert_line(text, "ramwatch_memory_bytes{group=\"run-r1.scope\",class=\"python\",kind=\"private\"} 150");
	/* sorted by bytes */
	assert_true(strstr(text, "{group=\"init.scope\"} 1") < strstr(text, "{group=\"postgresql@15-main.service\"} 1"));
	assert_true(strstr(text, "{group=\"postgresql@15-main.service\"} 1") < strstr(text, "{group=\"run-r1.scope\"} 2"));
	free(text);

	text = build(p, 4, EXPORT_GROUP_USER);
	assert_line(text, "ramwatch_processes{group=\"ana\"} 2");
	assert_line(text, "ramwatch_processes{group=\"postgres\"} 1");
	assert_line(text, "ramwatch_processes{group=\"root\"} 1");
	assert_line(text, "ramwatch_peak_private_bytes{group=\"ana\"} 5000");
	free(text);

	/* a user without a name is its uid; an unknown uid, an unknown comm
	 * and an unknown cgroup are "-" */
	struct export_process anon[] = {
		{ .comm = NULL, .uid = 4242, .user = NULL, .cgroup = NULL, .private = 1 },
		{ .comm = "", .uid = -1, .user = NULL, .cgroup = "", .private = 2 },
	};
	text = build(anon, 2, EXPORT_GROUP_USER);
	assert_line(text, "ramwatch_processes{group=\"4242\"} 1");
	assert_line(text, "ramwatch_processes{group=\"-\"} 1");
	free(text);
	text = build(anon, 2, EXPORT_GROUP_COMM);
	assert_line(text, "ramwatch_processes{group=\"-\"} 2");
	free(text);
	text = build(anon, 2, EXPORT_GROUP_UNIT);
	assert_line(text, "ramwatch_processes{group=\"-\"} 2");
	free(text);
}

static void test_unit_of_cgroup(void **state)
{
	(void)state;
	static const struct {
		const char *cgroup, *unit;
	} cases[] = {
		{ "/system.slice/nginx.service", "nginx.service" },
		{ "/user.slice/user-1000.slice/session-2.scope", "session-2.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-4.scope", "app-firefox-4.scope" },
		/* a delegated service's own cgroups below it */
		{ "/system.slice/docker.service/payload/inner", "docker.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope", "init.scope" },
		{ "/system.slice/ramwatchd.socket", "ramwatchd.socket" },
		{ "/system.slice/home.mount", "home.mount" },
		{ "/system.slice/dev-sda2.swap", "dev-sda2.swap" },
		/* systemd's escapes stay as they are */
		{ "/system.slice/systemd-fsck@dev-disk-by\\x2duuid-1.service", "systemd-fsck@dev-disk-by\\x2duuid-1.service" },
		{ "/user.slice/user-1000.slice", NULL },
		{ "/machine/qemu-1", NULL },
		{ "/", NULL },
		{ "/.service", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const char *u = NULL;
		size_t n = cgroup_unit_of_path(cases[i].cgroup, &u);
		if (!cases[i].unit) {
			if (n != 0)
				fail_msg("%s: unit %.*s, expected none", cases[i].cgroup, (int)n, u);
			continue;
		}
		if (n != strlen(cases[i].unit) || memcmp(u, cases[i].unit, n) != 0)
			fail_msg("%s: unit %.*s, expected %s", cases[i].cgroup, (int)n, n ? u : "", cases[i].unit);
	}
	assert_int_equal(cgroup_unit_of_path(NULL, &(const char *){ NULL }), 0);

	/* without a unit, the whole path is the group */
	char buf[RW_EXPORT_GROUP_MAX + 1];
	struct export_process p = { .cgroup = "/machine/qemu-1" };
	assert_string_equal(export_group_key(&p, EXPORT_GROUP_UNIT, buf), "/machine/qemu-1");
}

/* The GPU families: per group and device (processes of a group on one
 * device add up; a figure NVML could not give is left out), per device (total and used while it answers; up; info),
 * exactly; none at all without a snapshot, as on a host without NVIDIA
 * GPUs. */
static void test_gpu(void **state)
{
	(void)state;
	struct gpu_device devices[3] = {
		{ .index = 0, .uuid = "GPU-1111", .name = "NVIDIA A100", .total = 80 * GiB, .used = 9 * GiB,
		  .free = 71 * GiB, .present = true, .parent = -1 },
		{ .index = 1, .uuid = "GPU-2222", .name = "NVIDIA \"L4\"", .present = false, .parent = -1,
		  .error = "nvmlDeviceGetMemoryInfo: GPU is lost" },
		/* never answered: nothing names it */
		{ .index = 2, .present = false, .parent = -1 },
	};
	struct gpu_use uses[] = {
		{ .pid = 10, .device = 0, .used = 3 * GiB },
		{ .pid = 11, .device = 0, .used = 4 * GiB },
		{ .pid = 11, .device = 1, .used = GPU_BYTES_UNKNOWN },
		{ .pid = 12, .device = 0, .used = GiB },
	};
	struct gpu_snapshot s = { .state = GPU_OK, .devices = devices, .n_devices = 3, .uses = uses, .n_uses = 4 };
	struct export_process p[] = {
		{ .comm = "python3", .gpu = &uses[0], .n_gpu = 1 },
		{ .comm = "python3", .gpu = &uses[1], .n_gpu = 2 },
		{ .comm = "ollama", .gpu = &uses[3], .n_gpu = 1 },
		{ .comm = "bash" },
	};
	struct export_daemon d = daemon_counters;
	char *text = NULL;
	size_t len = 0;

	d.gpu = &s;
	assert_int_equal(export_text_build(&d, p, ELEMENTSOF(p), EXPORT_GROUP_COMM, &text, &len), 0);
	const char *expected =
		"# HELP ramwatch_gpu_memory_bytes GPU memory (VRAM) the group's processes hold on each device, at the"
		" last GPU snapshot.\n"
		"# TYPE ramwatch_gpu_memory_bytes gauge\n"
		"ramwatch_gpu_memory_bytes{group=\"ollama\",device=\"GPU-1111\"} 1073741824\n"
		"ramwatch_gpu_memory_bytes{group=\"python3\",device=\"GPU-1111\"} 7516192768\n"
		"# HELP ramwatch_gpu_device_memory_bytes Memory of each GPU: its total, and what every process together"
		" uses, at the last GPU snapshot.\n"
		"# TYPE ramwatch_gpu_device_memory_bytes gauge\n"
		"ramwatch_gpu_device_memory_bytes{device=\"GPU-1111\",kind=\"total\"} 85899345920\n"
		"ramwatch_gpu_device_memory_bytes{device=\"GPU-1111\",kind=\"used\"} 9663676416\n"
		"# HELP ramwatch_gpu_device_up 1 while the GPU answers NVML, 0 while it does not.\n"
		"# TYPE ramwatch_gpu_device_up gauge\n"
		"ramwatch_gpu_device_up{device=\"GPU-1111\"} 1\n"
		"ramwatch_gpu_device_up{device=\"GPU-2222\"} 0\n"
		"# HELP ramwatch_gpu_device_info The GPUs by UUID, with NVML's index and name; always 1.\n"
		"# TYPE ramwatch_gpu_device_info gauge\n"
		"ramwatch_gpu_device_info{device=\"GPU-1111\",index=\"0\",name=\"NVIDIA A100\"} 1\n"
		"ramwatch_gpu_device_info{device=\"GPU-2222\",index=\"1\",name=\"NVIDIA \\\"L4\\\"\"} 1\n"
		"# HELP ramwatch_censuses_total";
	const char *start = strstr(text, "# HELP ramwatch_gpu_memory_bytes");
	assert_non_null(start);
	assert_memory_equal(start, expected, strlen(expected));
	/* the rest is as without GPUs */
	char *plain = build(p, ELEMENTSOF(p), EXPORT_GROUP_COMM);
	assert_int_equal(len, strlen(plain) + strlen(expected) - strlen("# HELP ramwatch_censuses_total"));
	assert_no_line_with(plain, "gpu");
	free(plain);
	free(text);

	/* filtered to a user with no process on a GPU: the family is declared,
	 * empty; the devices are the same for everyone */
	assert_int_equal(export_text_build(&d, &p[3], 1, EXPORT_GROUP_COMM, &text, &len), 0);
	assert_line(text, "# TYPE ramwatch_gpu_memory_bytes gauge");
	assert_no_line_with(text, "ramwatch_gpu_memory_bytes{");
	assert_line(text, "ramwatch_gpu_device_up{device=\"GPU-2222\"} 0");
	free(text);
}

/* Names chosen to break the format: quotes, backslashes, line feeds,
 * bytes that are not UTF-8.  Each stays inside its label value. */
static void test_hostile_names(void **state)
{
	(void)state;
	struct export_process p[] = {
		{ .comm = "a\"b", .private = 1 },
		{ .comm = "c\\d", .private = 2 },
		{ .comm = "e\nf} 9\nx{", .private = 3 },
		{ .comm = "g\xff\xfeh", .private = 4 },
		{ .comm = "\"\\\n", .private = 5 },
		/* not UTF-8 either, and the same once replaced: one group */
		{ .comm = "g\xfd\xfch", .private = 6 },
		{ .comm = "\xc3\xa9t\xc3\xa9", .private = 7 }, /* été: kept */
	};
	char *text = build(p, ELEMENTSOF(p), EXPORT_GROUP_COMM);

	assert_line(text, "ramwatch_process_memory_bytes{group=\"a\\\"b\",kind=\"private\"} 1");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"c\\\\d\",kind=\"private\"} 2");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"e\\nf} 9\\nx{\",kind=\"private\"} 3");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"g\xef\xbf\xbd\xef\xbf\xbdh\",kind=\"private\"} 10");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"\\\"\\\\\\n\",kind=\"private\"} 5");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"\xc3\xa9t\xc3\xa9\",kind=\"private\"} 7");
	assert_line(text, "ramwatch_processes{group=\"g\xef\xbf\xbd\xef\xbf\xbdh\"} 2");

	/* the whole text is UTF-8, and every line is a comment or a sample of
	 * a family declared above it */
	assert_true(text_utf8_valid(text, strlen(text), NULL));
	char *copy = strdup(text), *save = NULL, declared[4096] = "";
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# TYPE ", 7) == 0) {
			strncat(declared, line + 7, strcspn(line + 7, " "));
			strcat(declared, "\n");
			continue;
		}
		if (line[0] == '#')
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%.*s\n", (int)strcspn(line, "{ "), line);
		if (!strstr(declared, name))
			fail_msg("line \"%s\" of no declared family", line);
	}
	free(copy);
	free(text);
}

/* A process whose last census was light has no class memory: it is left
 * out of ramwatch_memory_bytes and counted apart. */
static void test_light_left_out(void **state)
{
	(void)state;
	struct export_process p[4];
	fixed_processes(p);

	/* only the light python3 */
	char *text = build(&p[1], 1, EXPORT_GROUP_COMM);
	assert_no_line_with(text, "ramwatch_memory_bytes{");
	assert_line(text, "ramwatch_light_census_processes{group=\"python3\"} 1");
	assert_line(text, "ramwatch_process_memory_bytes{group=\"python3\",kind=\"private\"} 1000");
	free(text);

	/* with the full one: its classes alone ("other" is the light one's) */
	text = build(p, 2, EXPORT_GROUP_COMM);
	assert_no_line_with(text, "class=\"other\"");
	assert_line(text, "ramwatch_memory_bytes{group=\"python3\",class=\"malloc\",kind=\"private\"} 100");
	free(text);
}

/* A group label of at most RW_EXPORT_GROUP_MAX bytes, cut before a
 * character, never inside one. */
static void test_group_limit(void **state)
{
	(void)state;
	char cgroup[2 * RW_EXPORT_GROUP_MAX + 8], buf[RW_EXPORT_GROUP_MAX + 1];

	for (size_t fill = RW_EXPORT_GROUP_MAX - 3; fill <= RW_EXPORT_GROUP_MAX + 1; fill++) {
		/* "/" then fill bytes, then "é" (two bytes) repeated past the limit */
		memset(cgroup, 'x', sizeof(cgroup));
		cgroup[0] = '/';
		size_t n = 1 + fill;
		while (n + 2 < sizeof(cgroup) - 1) {
			cgroup[n++] = '\xc3';
			cgroup[n++] = '\xa9';
		}
		cgroup[n] = '\0';
		struct export_process p = { .cgroup = cgroup };
		export_group_key(&p, EXPORT_GROUP_UNIT, buf);
		size_t len = strlen(buf);
		assert_true(len <= RW_EXPORT_GROUP_MAX);
		assert_true(len >= RW_EXPORT_GROUP_MAX - 1);
		assert_true(text_utf8_valid(buf, len, NULL));
		assert_memory_equal(buf, cgroup, len);
	}
	/* exactly the limit is kept whole */
	memset(cgroup, 'y', RW_EXPORT_GROUP_MAX);
	cgroup[RW_EXPORT_GROUP_MAX] = '\0';
	struct export_process p = { .comm = cgroup };
	assert_string_equal(export_group_key(&p, EXPORT_GROUP_COMM, buf), cgroup);
	cgroup[RW_EXPORT_GROUP_MAX] = 'y';
	cgroup[RW_EXPORT_GROUP_MAX + 1] = '\0';
	assert_int_equal(strlen(export_group_key(&p, EXPORT_GROUP_COMM, buf)), RW_EXPORT_GROUP_MAX);
}

/* In use and free: given only for the classes of which every process of
 * the group knows them (the metrics have no null), and kept from the last
 * census that read them while the censuses between read none. */
static void test_allocator_bytes(void **state)
{
	(void)state;
	struct export_process p[4];
	fixed_processes(p);
	/* a second postgres whose malloc class a walk read: the group's other
	 * one did not, so the group has no series */
	struct export_classes known = postgres_full;
	known.heap = 1u << CLASS_MALLOC;
	known.in_use[CLASS_MALLOC] = 9;
	p[3] = (struct export_process){ .comm = "postgres", .uid = 113, .user = "postgres", .classes = &known };
	char *text = build(p, 4, EXPORT_GROUP_COMM);
	assert_no_line_with(text, "ramwatch_allocator_bytes{group=\"postgres\"");
	assert_line(text, "ramwatch_allocator_bytes{group=\"python3\",class=\"malloc\",kind=\"in_use\"} 70");
	free(text);
	/* both know it: the sums */
	postgres_full.heap = 1u << CLASS_MALLOC;
	postgres_full.in_use[CLASS_MALLOC] = 1;
	postgres_full.free_kept[CLASS_MALLOC] = 2;
	text = build(p, 4, EXPORT_GROUP_COMM);
	assert_line(text, "ramwatch_allocator_bytes{group=\"postgres\",class=\"malloc\",kind=\"in_use\"} 10");
	assert_line(text, "ramwatch_allocator_bytes{group=\"postgres\",class=\"malloc\",kind=\"free\"} 2");
	free(text);

	/* a census that read none keeps what the last one that did read */
	struct census *c = census_new();
	struct export_classes before, now;
	assert_non_null(c);
	c->classes[CLASS_MALLOC] = (struct census_totals){ .private = 100, .resident = 100, .count = 1 };
	c->classes[CLASS_STACKS] = (struct census_totals){ .private = 8, .resident = 8, .count = 1 };
	c->unknown_classes[CLASS_MALLOC] = c->unknown_classes[CLASS_STACKS] = CENSUS_HEAP_COUNTERS;
	assert_int_equal(census_set_heap(c, CLASS_MALLOC, 60, 30, 10, 0, 20, "glibc 2.36"), 0);
	export_classes_from_census(c, &before);
	assert_int_equal(before.heap, 1u << CLASS_MALLOC);
	assert_int_equal(before.in_use[CLASS_MALLOC], 60);
	assert_int_equal(before.returnable[CLASS_MALLOC], 20);
	c->unknown_classes[CLASS_MALLOC] |= CENSUS_HEAP_COUNTERS;
	c->classes[CLASS_MALLOC].private = 120;
	export_classes_from_census(c, &now);
	assert_int_equal(now.heap, 0);
	export_classes_keep_heap(&before, &now);
	assert_int_equal(now.heap, 1u << CLASS_MALLOC);
	assert_int_equal(now.private[CLASS_MALLOC], 120);
	assert_int_equal(now.in_use[CLASS_MALLOC], 60);
	assert_int_equal(now.free_kept[CLASS_MALLOC], 30);
	/* a class the census no longer has keeps nothing */
	c->classes[CLASS_MALLOC].count = 0;
	export_classes_from_census(c, &now);
	export_classes_keep_heap(&before, &now);
	assert_int_equal(now.heap, 0);
	census_free(c);
}

static void test_classes_from_census(void **state)
{
	(void)state;
	struct census *c = census_new();
	struct export_classes x;

	assert_non_null(c);
	c->classes[CLASS_MALLOC] = (struct census_totals){ .private = 5, .resident = 6, .count = 1 };
	c->classes[CLASS_JIT] = (struct census_totals){ .private = 0, .resident = 0, .size = 4096, .count = 2 };
	export_classes_from_census(c, &x);
	assert_true(x.ok);
	assert_false(x.light);
	assert_int_equal(x.present, 1u << CLASS_MALLOC | 1u << CLASS_JIT);
	assert_int_equal(x.private[CLASS_MALLOC], 5);
	assert_int_equal(x.resident[CLASS_MALLOC], 6);
	c->light = true;
	export_classes_from_census(c, &x);
	assert_true(x.light);
	census_free(c);
}

/* ------------------------------------------------------------ the file */

static void test_write_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/ramwatch-export-XXXXXX", path[256], tmp[280], victim[256], *text;
	const char *step = NULL;
	struct stat st;
	size_t len;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ramwatch.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);

	/* 0644 whatever the umask: node_exporter reads it as its own user */
	mode_t old = umask(027);
	assert_int_equal(export_write_file(path, "a 1\n", 4, &step), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	text = slurp(path, &len);
	assert_string_equal(text, "a 1\n");
	free(text);
	assert_int_equal(access(tmp, F_OK), -1);

	/* a link left at PATH.tmp is replaced, not written through */
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("keep\n", f);
	fclose(f);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(export_write_file(path, "b 2\n", 4, &step), 0);
	text = slurp(victim, &len);
	assert_string_equal(text, "keep\n");
	free(text);
	text = slurp(path, &len);
	assert_string_equal(text, "b 2\n");
	free(text);
	umask(old);

	/* a missing directory: the step and the error */
	char missing[300];
	snprintf(missing, sizeof(missing), "%s/no/such/dir/x.prom", dir);
	assert_int_equal(export_write_file(missing, "c 3\n", 4, &step), -ENOENT);
	assert_string_equal(step, "create");

	/* a directory where the file should be: the rename fails, nothing left */
	char taken[300], taken_tmp[320];
	snprintf(taken, sizeof(taken), "%s/dir.prom", dir);
	snprintf(taken_tmp, sizeof(taken_tmp), "%s.tmp", taken);
	assert_int_equal(mkdir(taken, 0755), 0);
	assert_int_equal(export_write_file(taken, "d 4\n", 4, &step), -EISDIR);
	assert_string_equal(step, "rename");
	assert_int_equal(access(taken_tmp, F_OK), -1);

	unlink(path);
	unlink(victim);
	rmdir(taken);
	assert_int_equal(rmdir(dir), 0);

	/* the state forgets its path, keeps its count */
	struct export_state s = { .path = strdup(path), .written = true, .error = -EROFS, .errors = 3 };
	export_state_done(&s);
	assert_null(s.path);
	assert_false(s.written);
	assert_int_equal(s.error, 0);
	assert_int_equal(s.errors, 3);
	export_state_done(NULL);
}

/* OOM kills by kind and the memory cgroups, per group and never per pid;
 * left out where the daemon has no OOM source or knows no group, and a
 * cgroup path that is not UTF-8 or holds a quote is a valid label. */
static void test_oom_and_cgroups(void **state)
{
	(void)state;
	struct export_cgroup groups[] = {
		{ .path = "/system.slice/grow.service", .usage = 160 * 1048576ull, .have_limit = true,
		  .limit = 200 * 1048576ull, .have_oom_kill = true, .oom_kill = 3 },
		{ .path = "/odd\"\xff", .usage = 4096 },
	};
	struct export_process p[] = { { .comm = "grow", .cgroup = "/system.slice/grow.service" } };
	struct export_daemon d = daemon_counters;
	char *text = NULL;
	size_t len = 0;

	d.oom_sources = true;
	d.oom_kills[EXPORT_OOM_MEMCG] = 2;
	d.oom_kills[EXPORT_OOM_COUNTED] = 1;
	d.cgroups = groups;
	d.n_cgroups = ELEMENTSOF(groups);
	assert_int_equal(export_text_build(&d, p, 1, EXPORT_GROUP_UNIT, &text, &len), 0);
	assert_line(text, "# TYPE ramwatch_oom_kills_total counter");
	assert_line(text, "ramwatch_oom_kills_total{constraint=\"memcg\"} 2");
	assert_line(text, "ramwatch_oom_kills_total{constraint=\"none\"} 0");
	assert_line(text, "ramwatch_oom_kills_total{constraint=\"counted\"} 1");
	assert_line(text, "ramwatch_cgroup_usage_bytes{cgroup=\"/system.slice/grow.service\"} 167772160");
	assert_line(text, "ramwatch_cgroup_limit_bytes{cgroup=\"/system.slice/grow.service\"} 209715200");
	assert_line(text, "ramwatch_cgroup_oom_kills_total{cgroup=\"/system.slice/grow.service\"} 3");
	assert_line(text, "ramwatch_cgroup_usage_bytes{cgroup=\"/odd\\\"\xef\xbf\xbd\"} 4096");
	/* no limit, no counter: no sample */
	assert_no_line_with(text, "ramwatch_cgroup_limit_bytes{cgroup=\"/odd");
	assert_no_line_with(text, "ramwatch_cgroup_oom_kills_total{cgroup=\"/odd");
	assert_no_line_with(text, "pid=");
	free(text);

	/* without a source and a group, nothing of them */
	char *plain = build(p, 1, EXPORT_GROUP_UNIT);
	assert_no_line_with(plain, "oom");
	assert_no_line_with(plain, "ramwatch_cgroup_");
	free(plain);
	assert_string_equal(export_oom_kind_name(_EXPORT_OOM_KIND_MAX), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_text),	   cmocka_unit_test(test_no_processes),
		cmocka_unit_test(test_group_by_unit_and_user), cmocka_unit_test(test_unit_of_cgroup),
		cmocka_unit_test(test_hostile_names),	   cmocka_unit_test(test_light_left_out),
		cmocka_unit_test(test_group_limit),	   cmocka_unit_test(test_classes_from_census),
		cmocka_unit_test(test_allocator_bytes),
		cmocka_unit_test(test_write_file),	   cmocka_unit_test(test_gpu),
		cmocka_unit_test(test_oom_and_cgroups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
