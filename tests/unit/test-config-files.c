/* ramwatchd.conf on disk: a missing file, the drop-ins and their order,
 * list clearing across files, errors naming the file they are in, files
 * that cannot be read, and the limits of a file and of the drop-in count.
 * Each test works in its own mkdtemp directory. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "limits.h"

struct dir {
	char path[256];
	char conf[300]; /* DIR/ramwatchd.conf */
	char dropins[310]; /* DIR/ramwatchd.conf.d */
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	assert_non_null(d);
	snprintf(d->path, sizeof(d->path), "/tmp/test-config-XXXXXX");
	assert_non_null(mkdtemp(d->path));
	snprintf(d->conf, sizeof(d->conf), "%s/ramwatchd.conf", d->path);
	snprintf(d->dropins, sizeof(d->dropins), "%s.d", d->conf);
	*state = d;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	chmod(path, 0700);
	return remove(path);
}

static int teardown(void **state)
{
	struct dir *d = *state;
	nftw(d->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
	return 0;
}

/* Writes text to DIR/name (name may be "ramwatchd.conf.d/x.conf"). */
static void put(const struct dir *d, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	if (strchr(name, '/'))
		mkdir(d->dropins, 0755);
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Loads DIR/ramwatchd.conf, which must fail with r and exactly msg (the
 * directory's path written as DIR), leaving the output alone. */
static void load_fails(const struct dir *d, int r, const char *msg)
{
	struct daemon_config c, sentinel;
	struct error err = { 0 };
	char want[1024];
	const char *at = strstr(msg, "DIR");

	if (at)
		snprintf(want, sizeof(want), "%.*s%s%s", (int)(at - msg), msg, d->path, at + 3);
	else
		snprintf(want, sizeof(want), "%s", msg);
	memset(&c, 0x5a, sizeof(c));
	memcpy(&sentinel, &c, sizeof(c));
	int got = config_load(d->conf, &c, &err);
	if (got != r || strcmp(err.message, want) != 0)
		fail_msg("config_load:\n  got      %d \"%s\"\n  expected %d \"%s\"", got, err.message, r, want);
	assert_memory_equal(&c, &sentinel, sizeof(c));
}

static struct daemon_config load_ok(const struct dir *d)
{
	struct daemon_config c;
	struct error err = { 0 };
	int r = config_load(d->conf, &c, &err);
	if (r < 0)
		fail_msg("config_load: %d %s", r, err.message);
	return c;
}

static void test_missing(void **state)
{
	struct dir *d = *state;
	struct daemon_config c, def;

	/* neither the file nor the directory: the defaults */
	config_defaults(&def);
	c = load_ok(d);
	assert_int_equal(config_describe_changes(&def, &c, NULL, 0), 0);
	config_done(&c);

	/* drop-ins without a main file */
	put(d, "ramwatchd.conf.d/a.conf", "[Sampling]\nSampleInterval=2s\n");
	c = load_ok(d);
	assert_int_equal(c.sample_interval, 2000000);
	config_done(&c);

	/* a main file without drop-ins */
	char path[512];
	snprintf(path, sizeof(path), "%s/a.conf", d->dropins);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(d->dropins), 0);
	put(d, "ramwatchd.conf", "[Sampling]\nSampleInterval=3s\n");
	c = load_ok(d);
	assert_int_equal(c.sample_interval, 3000000);
	config_done(&c);
	config_done(&def);
}

static void test_dropin_order(void **state)
{
	struct dir *d = *state;

	put(d, "ramwatchd.conf",
	    "[Watch]\nWatch=name:main\nIgnore=pid:1\n[Sampling]\nCensusInterval=1h\nSampleInterval=2s\n");
	/* strcmp order: "10-..." < "50-..." < "9-..." */
	put(d, "ramwatchd.conf.d/9-last.conf", "[Sampling]\nCensusInterval=3h\n[Watch]\nWatch=name:nine\n");
	put(d, "ramwatchd.conf.d/10-first.conf", "[Sampling]\nCensusInterval=1min\n[Watch]\nWatch=name:ten\n");
	put(d, "ramwatchd.conf.d/50-middle.conf", "[Watch]\nWatch=\nWatch=name:fifty\nIgnore=\n");
	/* not read: the wrong suffix, hidden, a backup */
	put(d, "ramwatchd.conf.d/60-x.conf.bak", "[Nonsense]\n");
	put(d, "ramwatchd.conf.d/.hidden.conf", "[Nonsense]\n");
	put(d, "ramwatchd.conf.d/README", "not a configuration\n");

	struct daemon_config c = load_ok(d);
	assert_int_equal(c.census_interval, 3ull * 3600 * 1000000);
	assert_int_equal(c.sample_interval, 2000000); /* from the main file, never overridden */
	/* main and 10- added, 50- cleared and added, 9- added */
	assert_int_equal(c.watch.n, 2);
	assert_string_equal(c.watch.v[0].arg, "fifty");
	assert_string_equal(c.watch.v[1].arg, "nine");
	assert_int_equal(c.ignore.n, 0);
	config_done(&c);

	/* "Watch=all" in one file, cleared by a later one */
	put(d, "ramwatchd.conf", "[Watch]\nWatch=all\n");
	put(d, "ramwatchd.conf.d/50-middle.conf", "[Watch]\nWatch=\nWatch=pid:7\n");
	put(d, "ramwatchd.conf.d/9-last.conf", "\n");
	put(d, "ramwatchd.conf.d/10-first.conf", "");
	c = load_ok(d);
	assert_int_equal(c.watch.n, 1);
	assert_int_equal(c.watch.v[0].num, 7);
	config_done(&c);
}

static void test_dropin_errors(void **state)
{
	struct dir *d = *state;

	put(d, "ramwatchd.conf", "[Sampling]\nSampleInterval=2s\n");
	put(d, "ramwatchd.conf.d/10-a.conf", "[Sampling]\nCensusInterval=1h\n");
	put(d, "ramwatchd.conf.d/20-b.conf", "# b\n[Sampling]\nCensusInterval=forever\n");
	load_fails(d, -EINVAL,
		   "DIR/ramwatchd.conf.d/20-b.conf:3: CensusInterval: 'forever' is not a time (use e.g. 500ms, 10s, "
		   "5min, 2h, 1d)");

	/* each file starts outside any section */
	put(d, "ramwatchd.conf.d/20-b.conf", "CensusInterval=2h\n");
	load_fails(d, -EINVAL, "DIR/ramwatchd.conf.d/20-b.conf:1: setting 'CensusInterval' comes before any section header");

	/* the cross-check points at the later of the two assignments,
	 * whichever file it is in */
	put(d, "ramwatchd.conf.d/20-b.conf", "\n[Sampling]\nStoreInterval=1s\n");
	load_fails(d, -ERANGE,
		   "DIR/ramwatchd.conf.d/20-b.conf:3: StoreInterval=1s is shorter than SampleInterval=2s "
		   "(StoreInterval must be at least SampleInterval)");
	put(d, "ramwatchd.conf", "[Sampling]\nStoreInterval=1s\n");
	put(d, "ramwatchd.conf.d/20-b.conf", "[Sampling]\nSampleInterval=2s\n");
	load_fails(d, -ERANGE,
		   "DIR/ramwatchd.conf.d/20-b.conf:2: StoreInterval=1s is shorter than SampleInterval=2s "
		   "(StoreInterval must be at least SampleInterval)");
	put(d, "ramwatchd.conf.d/20-b.conf", "[Sampling]\nSampleInterval=1s\n");
	struct daemon_config c = load_ok(d);
	config_done(&c);

	/* an error in the main file */
	put(d, "ramwatchd.conf", "[Sampling]\n\n\nFoo=1\n");
	load_fails(d, -EINVAL, "DIR/ramwatchd.conf:4: unknown setting 'Foo' in section [Sampling]");
}

static void test_unreadable(void **state)
{
	struct dir *d = *state;
	char path[512];

	/* a directory where the file should be */
	assert_int_equal(mkdir(d->conf, 0755), 0);
	load_fails(d, -EISDIR, "DIR/ramwatchd.conf: is a directory, not a file");
	assert_int_equal(rmdir(d->conf), 0);

	/* a directory named like a drop-in */
	snprintf(path, sizeof(path), "%s/10-dir.conf", d->dropins);
	assert_int_equal(mkdir(d->dropins, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	load_fails(d, -EISDIR, "DIR/ramwatchd.conf.d/10-dir.conf: is a directory, not a file");
	assert_int_equal(rmdir(path), 0);

	/* a FIFO: refused at once rather than waited on */
	snprintf(path, sizeof(path), "%s/10-fifo.conf", d->dropins);
	assert_int_equal(mkfifo(path, 0644), 0);
	load_fails(d, -EINVAL, "DIR/ramwatchd.conf.d/10-fifo.conf: not a regular file");
	assert_int_equal(unlink(path), 0);

	/* the drop-in directory is a file */
	assert_int_equal(rmdir(d->dropins), 0);
	put(d, "ramwatchd.conf.d", "");
	load_fails(d, -ENOTDIR, "DIR/ramwatchd.conf.d: cannot open: Not a directory");
	assert_int_equal(unlink(d->dropins), 0);

	/* a path through a file */
	put(d, "ramwatchd.conf", "");
	char through[512];
	snprintf(through, sizeof(through), "%s/x", d->conf);
	struct daemon_config c;
	struct error err;
	assert_int_equal(config_load(through, &c, &err), -ENOTDIR);
	assert_non_null(strstr(err.message, "/ramwatchd.conf/x: cannot open: Not a directory"));
}

static void test_permission_denied(void **state)
{
	struct dir *d = *state;
	struct error err = { 0 };
	char want[1024];
	struct daemon_config c;

	put(d, "ramwatchd.conf", "[Sampling]\n");
	assert_int_equal(chmod(d->conf, 0), 0);
	snprintf(want, sizeof(want), "%s: cannot open: Permission denied", d->conf);
	if (geteuid() != 0) {
		load_fails(d, -EACCES, "DIR/ramwatchd.conf: cannot open: Permission denied");
		return;
	}

	/* root reads a mode-000 file anyway (CAP_DAC_OVERRIDE), so the load
	 * runs in a child that has become nobody */
	assert_int_equal(chmod(d->path, 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		int r = config_load(d->conf, &c, &err);
		_exit(r == -EACCES && strcmp(err.message, want) == 0 ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2) {
		print_message("skipped: cannot become nobody to read without CAP_DAC_OVERRIDE\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_file_limit(void **state)
{
	struct dir *d = *state;

	/* exactly RW_CONFIG_FILE_MAX bytes, then one more */
	for (unsigned extra = 0; extra <= 1; extra++) {
		size_t n = RW_CONFIG_FILE_MAX + extra;
		char *text = malloc(n + 1);
		assert_non_null(text);
		memset(text, ';', n);
		for (size_t i = 99; i < n; i += 100)
			text[i] = '\n';
		text[n] = '\0';
		put(d, "ramwatchd.conf.d/big.conf", text);
		free(text);
		if (extra == 0) {
			struct daemon_config c = load_ok(d);
			config_done(&c);
		} else {
			char msg[128];
			snprintf(msg, sizeof(msg), "DIR/ramwatchd.conf.d/big.conf: longer than %u bytes",
				 RW_CONFIG_FILE_MAX);
			load_fails(d, -E2BIG, msg);
		}
	}
}

static void test_dropins_limit(void **state)
{
	struct dir *d = *state;
	char name[64], text[64];

	for (unsigned i = 1; i <= RW_CONFIG_DROPINS_MAX; i++) {
		snprintf(name, sizeof(name), "ramwatchd.conf.d/%04u.conf", i);
		snprintf(text, sizeof(text), "[Sampling]\nCensusInterval=%us\n", i);
		put(d, name, text);
	}
	struct daemon_config c = load_ok(d);
	assert_int_equal(c.census_interval, RW_CONFIG_DROPINS_MAX * 1000000ull); /* the last one read */
	config_done(&c);

	/* files that are not drop-ins do not count */
	put(d, "ramwatchd.conf.d/notes.txt", "");
	c = load_ok(d);
	config_done(&c);

	put(d, "ramwatchd.conf.d/9999.conf", "");
	char msg[128];
	snprintf(msg, sizeof(msg), "DIR/ramwatchd.conf.d: more than %u drop-in files", RW_CONFIG_DROPINS_MAX);
	load_fails(d, -E2BIG, msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropin_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_permission_denied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropins_limit, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
