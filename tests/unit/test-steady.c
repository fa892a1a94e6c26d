/* The steady check (scanner/steady.c): the fingerprint does not depend on
 * how its input was cut; the rollup's fields are found by name; and on
 * a child process, two reads with nothing between them are the same,
 * while a page touched, a mapping made and a protection changed (with the
 * same totals) each make them differ; the check without the change
 * watch between two whole reads sees what it should and misses what it
 * says; and where the kernel has no PROCMAP_QUERY, both fall back to the
 * text of maps. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "steady.h"


static void test_hash_ignores_cuts(void **state)
{
	(void)state;
	char text[1000];
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)(i * 7 + 3);
	struct steady_hash whole, cut;
	steady_hash_init(&whole);
	steady_hash_bytes(&whole, text, sizeof(text));
	for (size_t step = 1; step < 20; step++) {
		steady_hash_init(&cut);
		for (size_t off = 0; off < sizeof(text); off += step)
			steady_hash_bytes(&cut, text + off, sizeof(text) - off < step ? sizeof(text) - off : step);
		assert_int_equal(steady_hash_end(&cut), steady_hash_end(&whole));
	}
	/* one byte more, or one byte other, is another fingerprint */
	steady_hash_init(&cut);
	steady_hash_bytes(&cut, text, sizeof(text) - 1);
	assert_int_not_equal(steady_hash_end(&cut), steady_hash_end(&whole));
	text[500] ^= 1;
	steady_hash_init(&cut);
	steady_hash_bytes(&cut, text, sizeof(text));
	assert_int_not_equal(steady_hash_end(&cut), steady_hash_end(&whole));
}

static void test_rollup_field(void **state)
{
	(void)state;
	static const char text[] = "55d0-7ffd ---p 00000000 00:00 0   [rollup]\n"
				   "Rss:                1464 kB\n"
				   "Pss:                 254 kB\n"
				   "Pss_File:             78 kB\n"
				   "Pss_Anon:            176";
	uint64_t kb = 0;
	assert_true(steady_rollup_field(text, strlen(text), "Pss_File:", &kb));
	assert_int_equal(kb, 78);
	assert_true(steady_rollup_field(text, strlen(text), "Pss_Anon:", &kb)); /* no newline at the end */
	assert_int_equal(kb, 176);
	assert_true(steady_rollup_field(text, strlen(text), "Pss:", &kb));
	assert_int_equal(kb, 254);
	assert_false(steady_rollup_field(text, strlen(text), "Swap:", &kb));
	assert_false(steady_rollup_field("Pss_File: x kB\n", 15, "Pss_File:", &kb));
	assert_false(steady_rollup_field("Pss_File: 99999999999999999999999 kB\n", 37, "Pss_File:", &kb));
}

static void read_mark(int fd, struct steady_mark *m)
{
	uint64_t bytes = 0;
	assert_int_equal(steady_read(fd, 0, m, NULL, NULL, &bytes), 0);
	assert_true(bytes > 0);
	assert_int_equal(m->source, STEADY_MAPS);
	assert_true(m->mappings > 0);
}

/* The steady helper ($RAMWATCH_BUILD/helpers/steady, tests/helpers/steady.c)
 * as a child on two pipes: a process of its own image (a forked copy of
 * this one would share its pages, whose figures this process's own work
 * then moves), which holds still between commands. */
static void helper_path(char *path, size_t size)
{
	const char *build = getenv("RAMWATCH_BUILD");
	snprintf(path, size, "%s/helpers/steady", build ? build : "build");
}

/* The helper at path (NULL: the built one), with argument arg (may be NULL). */
static pid_t start_helper_at(const char *at, const char *arg, int *ret_to, int *ret_from)
{
	char path[512];
	int down[2], up[2];

	if (at)
		snprintf(path, sizeof(path), "%s", at);
	else
		helper_path(path, sizeof(path));
	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (dup2(down[0], 0) < 0 || dup2(up[1], 1) < 0)
			_exit(127);
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	close(down[0]);
	close(up[1]);
	*ret_to = down[1];
	*ret_from = up[0];
	return pid;
}

static pid_t start_helper(int *ret_to, int *ret_from)
{
	return start_helper_at(NULL, NULL, ret_to, ret_from);
}

/* Reads one line of the helper's into buf. */
static void read_line(int from, char *buf, size_t size)
{
	size_t n = 0;
	while (n + 1 < size && read(from, buf + n, 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = '\0';
}

static void tell(int to, int from, const char *cmd)
{
	char line[64], want[64];
	assert_int_equal(write(to, cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	assert_int_equal(write(to, "\n", 1), 1);
	read_line(from, line, sizeof(line));
	snprintf(want, sizeof(want), "done %s", cmd);
	assert_string_equal(line, want);
}

/* Waits for the helper's "ready", opens its /proc directory, and brings
 * it to rest: round trips that change nothing, until the child's own path
 * from one command to the next touches no page it has not touched. */
static int helper_ready(int root, pid_t pid, int to, int from)
{
	char line[64];

	read_line(from, line, sizeof(line));
	assert_string_equal(line, "ready");
	int fd = procfs_open_pid(root, pid);
	assert_true(fd >= 0);
	for (int i = 0; i < 3; i++)
		tell(to, from, "nop");
	return fd;
}

static void test_live(void **state)
{
	(void)state;
	long page = sysconf(_SC_PAGESIZE);
	struct steady_mark a, b;
	int to, from;
	pid_t pid = start_helper(&to, &from);
	int root = procfs_open_root(NULL), fd = helper_ready(root, pid, to, from);
	read_mark(fd, &a);
	read_mark(fd, &b);
	assert_true(steady_same(&a, &b));

	/* one page touched (the last of its work region): the rollup's Rss */
	tell(to, from, "touch");
	read_mark(fd, &b);
	assert_false(steady_same(&a, &b));
	assert_int_equal(b.kb[COUNT_RSS] - a.kb[COUNT_RSS], (uint64_t)page / 1024);
	a = b;

	/* the same totals, another protection (its spare region): the
	 * fingerprint */
	tell(to, from, "protect");
	read_mark(fd, &b);
	assert_false(steady_same(&a, &b));
	assert_memory_equal(a.kb, b.kb, sizeof(a.kb));
	assert_int_not_equal(a.fingerprint, b.fingerprint);

	/* nothing read is never the same as anything */
	struct steady_mark none = { .source = STEADY_NONE };
	assert_false(steady_same(&none, &none));

	/* the ioctl, where the kernel has it, sees the mappings of the text
	 * but for [vsyscall] (x86-64), which is no mapping of the process */
	bool have_ioctl = false;
	uint64_t bytes = 0;
	assert_int_equal(steady_read(fd, STEADY_READ_IOCTL, &a, NULL, &have_ioctl, &bytes), 0);
	assert_int_equal(a.source, have_ioctl ? STEADY_IOCTL : STEADY_MAPS);
	assert_true(a.mappings == b.mappings || (have_ioctl && a.mappings + 1 == b.mappings));
	assert_false(steady_same(&a, &b) && have_ioctl);

	/* gone: the read says so */
	close(to);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(steady_read(fd, 0, &a, NULL, NULL, &bytes), -ESRCH);
	close(from);
	close(fd);
	close(root);
}

/* Copies file from to to (mode 0700). */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
}

static void read_kept(int fd, const struct steady_mark *was, const struct steady_files *files,
		      struct steady_mark *m)
{
	uint64_t bytes = 0;
	assert_int_equal(steady_read_kept(fd, was, files, m, &bytes), 0);
	assert_true(bytes > 0);
}

/* The check the daemon makes when its change watch says the mappings did
 * not change: the names of the file mappings and smaps_rollup.  A helper
 * run from a copy of its program in a directory of its own: renaming the
 * copy, renaming the directory, deleting the copy each change what maps
 * shows with the address space untouched, and the check sees each; a page
 * touched changes the rollup.  A process with as many file mappings as
 * anonymous ones has no names: the check is not for it. */
static void test_kept(void **state)
{
	(void)state;
	char built[512], dir[256], sub[300], sub2[300], prog[320], renamed[320], renamed2[320];
	struct steady_mark a, b, k;
	_cleanup_(steady_files_done) struct steady_files fa = { 0 };
	char line[64];
	int to, from;

	helper_path(built, sizeof(built));
	snprintf(dir, sizeof(dir), "/var/tmp/ramwatch-test-steady-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/d", dir);
	snprintf(sub2, sizeof(sub2), "%s/e", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(prog, sizeof(prog), "%s/steady", sub);
	snprintf(renamed, sizeof(renamed), "%s/steady-renamed", sub);
	snprintf(renamed2, sizeof(renamed2), "%s/steady-renamed", sub2);
	copy_file(built, prog);

	pid_t pid = start_helper_at(prog, "400", &to, &from);
	int root = procfs_open_root(NULL), fd = helper_ready(root, pid, to, from);

	uint64_t bytes = 0;
	bool have_ioctl = false;
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES | STEADY_READ_IOCTL, &a, &fa, &have_ioctl, &bytes), 0);
	if (!have_ioctl) {
		/* before Linux 6.11: no names, and no check of them */
		assert_false(a.has_names);
		assert_int_equal(steady_read_kept(fd, &a, &fa, &k, &bytes), -EINVAL);
		skip();
	}
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES, &a, &fa, NULL, &bytes), 0);
	assert_true(a.has_names);
	assert_true(a.named >= 3 && a.named * STEADY_NAMES_PER <= a.mappings);
	assert_int_equal(fa.n, a.named);
	read_kept(fd, &a, &fa, &k);
	assert_true(steady_same(&a, &k));
	/* names read or not are never the same */
	read_mark(fd, &b);
	assert_false(steady_same(&a, &b));

	/* its program renamed: maps shows the new name */
	assert_int_equal(rename(prog, renamed), 0);
	read_kept(fd, &a, &fa, &k);
	assert_false(steady_same(&a, &k));
	assert_int_not_equal(a.names, k.names);
	assert_memory_equal(a.kb, k.kb, sizeof(a.kb));
	struct steady_mark was = a;
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES, &a, &fa, NULL, &bytes), 0);
	assert_false(steady_same(&was, &a)); /* the text of maps moved too */
	assert_int_equal(a.names, k.names); /* the kept check read what a whole read does */
	read_kept(fd, &a, &fa, &k);
	assert_true(steady_same(&a, &k));

	/* the directory above it renamed */
	assert_int_equal(rename(sub, sub2), 0);
	read_kept(fd, &a, &fa, &k);
	assert_false(steady_same(&a, &k));
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES, &a, &fa, NULL, &bytes), 0);

	/* deleted: maps says "(deleted)" */
	assert_int_equal(unlink(renamed2), 0);
	read_kept(fd, &a, &fa, &k);
	assert_false(steady_same(&a, &k));
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES, &a, &fa, NULL, &bytes), 0);
	read_kept(fd, &a, &fa, &k);
	assert_true(steady_same(&a, &k));

	/* one page touched: the rollup */
	tell(to, from, "touch");
	read_kept(fd, &a, &fa, &k);
	assert_false(steady_same(&a, &k));
	assert_int_equal(k.names, a.names);

	/* a mark without names cannot be checked so */
	read_mark(fd, &b);
	assert_false(b.has_names);
	assert_int_equal(steady_read_kept(fd, &b, &fa, &k, &bytes), -EINVAL);

	close(to);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(steady_read_kept(fd, &a, &fa, &k, &bytes), -ESRCH);
	close(from);
	close(fd);

	/* the plain helper: about as many file mappings as others, no names */
	pid = start_helper(&to, &from);
	read_line(from, line, sizeof(line));
	assert_string_equal(line, "ready");
	fd = procfs_open_pid(root, pid);
	assert_true(fd >= 0);
	assert_int_equal(steady_read(fd, STEADY_READ_NAMES, &a, &fa, NULL, &bytes), 0);
	assert_false(a.has_names);
	assert_true(a.named * STEADY_NAMES_PER > a.mappings);
	assert_int_equal(fa.n, 0);
	close(to);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(from);
	close(fd);
	close(root);
	rmdir(sub2);
	rmdir(dir);
}

/* The check without the change watch between two whole reads of the
 * mappings (steady_read_files): statm, the file mappings at the starts the
 * last whole read found them, and smaps_rollup.  It sees a page touched
 * (the rollup), a mapping made (statm's size too) and a mapped file
 * renamed (its name); it does not see an anonymous mapping protected
 * differently with every total the same, which the next whole read sees
 * in maps (the daemon makes one every SteadyCheckInterval). */
static void test_files(void **state)
{
	(void)state;
	char built[512], dir[256], prog[300], renamed[300];
	long page = sysconf(_SC_PAGESIZE);
	struct steady_mark w, k, plain;
	_cleanup_(steady_files_done) struct steady_files wf = { 0 };
	int to, from;

	helper_path(built, sizeof(built));
	snprintf(dir, sizeof(dir), "/var/tmp/ramwatch-test-files-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/steady", dir);
	snprintf(renamed, sizeof(renamed), "%s/steady-renamed", dir);
	copy_file(built, prog);
	pid_t pid = start_helper_at(prog, NULL, &to, &from);
	int root = procfs_open_root(NULL), fd = helper_ready(root, pid, to, from);

	uint64_t bytes = 0;
	assert_int_equal(steady_read(fd, STEADY_READ_FILES, &w, &wf, NULL, &bytes), 0);
	assert_int_equal(w.source, STEADY_MAPS);
	assert_true(w.has_statm && w.statm[0] > 0 && w.statm[1] > 0);
	if (!w.has_files) {
		/* before Linux 6.11: no file mappings, and no such check */
		assert_int_equal(wf.n, 0);
		assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), -EINVAL);
		skip();
	}
	/* the program, the C library, the loader: each a few file mappings */
	assert_true(w.filed >= 6 && w.filed < w.mappings);
	assert_int_equal(wf.n, w.filed);
	bytes = 0;
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_int_equal(k.source, STEADY_FILES);
	assert_true(steady_same(&w, &k) && steady_same(&k, &w));
	/* it read statm and smaps_rollup, no line of maps */
	assert_true(bytes > 0 && bytes < 4096);
	/* a whole read without them compares by maps alone; a read of the
	 * file mappings alone never stands for one without them */
	read_mark(fd, &plain);
	assert_true(steady_same(&w, &plain));
	assert_false(steady_same(&k, &plain));

	/* one page touched: the rollup and statm's resident */
	tell(to, from, "touch");
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_false(steady_same(&w, &k));
	assert_int_equal(k.kb[COUNT_RSS] - w.kb[COUNT_RSS], (uint64_t)page / 1024);
	assert_int_equal(k.statm[1] - w.statm[1], 1);
	assert_int_equal(k.files, w.files);
	/* the file mappings and maps added to it: what the census after it
	 * keeps, which the next check compares with */
	assert_int_equal(steady_read_maps(fd, &k, &wf, &bytes), 0);
	assert_int_equal(k.source, STEADY_MAPS);
	assert_int_equal(k.filed, wf.n);
	w = k;
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_true(steady_same(&w, &k));

	/* a mapping made: statm's size */
	tell(to, from, "map");
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_false(steady_same(&w, &k));
	assert_int_equal(k.statm[0] - w.statm[0], 1);
	assert_int_equal(steady_read(fd, STEADY_READ_FILES, &w, &wf, NULL, &bytes), 0);

	/* an anonymous mapping protected differently, every total the same:
	 * missed here, seen by the next whole read, in maps */
	tell(to, from, "protect");
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_true(steady_same(&w, &k));
	struct steady_mark whole;
	_cleanup_(steady_files_done) struct steady_files whole_files = { 0 };
	assert_int_equal(steady_read(fd, STEADY_READ_FILES, &whole, &whole_files, NULL, &bytes), 0);
	assert_false(steady_same(&w, &whole));
	assert_int_not_equal(w.fingerprint, whole.fingerprint);
	assert_int_equal(w.files, whole.files);
	assert_memory_equal(w.statm, whole.statm, sizeof(w.statm));
	w = whole;

	/* its program renamed: the name of its file mappings */
	assert_int_equal(rename(prog, renamed), 0);
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), 0);
	assert_false(steady_same(&w, &k));
	assert_int_not_equal(w.files, k.files);
	assert_memory_equal(w.kb, k.kb, sizeof(w.kb));

	/* starts that are not the mark's are refused */
	wf.n--;
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), -EINVAL);
	wf.n++;

	close(to);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(steady_read_files(fd, &w, &wf, &k, &bytes), -ESRCH);
	close(from);
	close(fd);
	close(root);
	unlink(renamed);
	rmdir(dir);
}

/* Where the kernel has no PROCMAP_QUERY (before Linux 6.11) the ioctl
 * answers ENOTTY, and the check reads the text of maps instead.  That
 * answer is forced here by the kernel itself: a directory holding a live
 * process's maps and smaps_rollup copied as regular files, on which the
 * ioctl is unknown as on an older kernel's maps.  The check through it
 * falls back to the text, says the ioctl is missing, reads no names, and
 * reads what the text of the live process gives; the kept check, which
 * only the ioctl can make, says so (the daemon then reads maps). */
static void test_text_fallback(void **state)
{
	(void)state;
	char dir[256], path[300], from_path[64];
	struct steady_mark live, forced, k;
	_cleanup_(steady_files_done) struct steady_files files = { 0 }, live_files = { 0 };
	int to, from;

	/* with 400 anonymous mappings more: few file mappings, whose names
	 * the live check reads */
	pid_t pid = start_helper_at(NULL, "400", &to, &from);
	int root = procfs_open_root(NULL), fd = helper_ready(root, pid, to, from);
	snprintf(dir, sizeof(dir), "/var/tmp/ramwatch-test-fallback-XXXXXX");
	assert_non_null(mkdtemp(dir));
	static const char *const names[] = { "maps", "smaps_rollup", "statm" };
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(from_path, sizeof(from_path), "/proc/%d/%s", (int)pid, names[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		copy_file(from_path, path);
	}
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dir_fd >= 0);

	uint64_t bytes = 0;
	bool have_ioctl = true;
	assert_int_equal(steady_read(dir_fd, STEADY_READ_IOCTL | STEADY_READ_NAMES, &forced, &files, &have_ioctl, &bytes),
			 0);
	assert_false(have_ioctl);
	assert_int_equal(forced.source, STEADY_MAPS);
	assert_false(forced.has_names);
	assert_int_equal(files.n, 0);
	assert_true(forced.mappings > 0 && bytes > 0);
	/* the same as the text of the live process, which held still */
	read_mark(fd, &live);
	assert_true(steady_same(&forced, &live));
	assert_int_equal(forced.fingerprint, live.fingerprint);

	/* the check without the watch reads maps there: no file mappings are
	 * read, and the check of them alone says the ioctl is missing */
	_cleanup_(steady_files_done) struct steady_files live_whole_files = { 0 };
	struct steady_mark live_whole;
	assert_int_equal(steady_read(dir_fd, STEADY_READ_FILES, &forced, &files, NULL, &bytes), 0);
	assert_int_equal(forced.source, STEADY_MAPS);
	assert_false(forced.has_files);
	assert_true(forced.has_statm);
	assert_int_equal(files.n, 0);
	assert_true(steady_same(&forced, &live));
	assert_int_equal(steady_read(fd, STEADY_READ_FILES, &live_whole, &live_whole_files, NULL, &bytes), 0);
	if (live_whole.has_files) {
		assert_true(steady_same(&forced, &live_whole));
		assert_int_equal(steady_read_files(dir_fd, &live_whole, &live_whole_files, &k, &bytes), -ENOTTY);
	}

	/* the kept check needs the ioctl: it says it is missing */
	bool live_ioctl = false;
	assert_int_equal(steady_read(fd, STEADY_READ_IOCTL | STEADY_READ_NAMES, &live, &live_files, &live_ioctl, &bytes),
			 0);
	if (live_ioctl) {
		assert_true(live.has_names);
		assert_int_equal(steady_read_kept(dir_fd, &live, &live_files, &k, &bytes), -ENOTTY);
	}

	close(dir_fd);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	close(to);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(from);
	close(fd);
	close(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_ignores_cuts),
		cmocka_unit_test(test_rollup_field),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_text_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
