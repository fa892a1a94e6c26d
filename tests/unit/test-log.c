/* Logging: what reaches stderr and the recent messages, for a line that
 * names a process whose name is not UTF-8. */
#include "testlib.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "text.h"

/* Runs log_warning(fmt, arg) with stderr sent to a file; returns what was
 * written (the caller frees). */
static char *logged(const char *arg)
{
	char path[] = "/tmp/ramwatch-test-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	assert_true(fd >= 0 && saved >= 0);
	unlink(path);
	fflush(stderr);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	log_open(true);
	log_warning("watching process 42 (%s): private 1 MiB", arg);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);

	char *buf = calloc(1, 4096);
	assert_non_null(buf);
	ssize_t n = pread(fd, buf, 4095, 0);
	assert_true(n > 0);
	close(fd);
	return buf;
}

static void test_invalid_bytes_escaped(void **state)
{
	(void)state;
	/* a name the kernel shows as it is, but for '\\' and newlines */
	char *out = logged("q\"b\\\\c\\nd\xff}{");
	assert_string_equal(out, "<4>watching process 42 (q\"b\\\\c\\nd\\xff}{): private 1 MiB\n");
	assert_true(text_utf8_valid(out, strlen(out), NULL));
	free(out);

	struct log_recent_entry recent[LOG_RECENT_MAX];
	size_t n = log_recent(recent, LOG_RECENT_MAX);
	assert_true(n >= 1);
	assert_string_equal(recent[n - 1].message, "watching process 42 (q\"b\\\\c\\nd\\xff}{): private 1 MiB");
}

static void test_valid_text_unchanged(void **state)
{
	(void)state;
	/* valid UTF-8, tabs and all, is written byte for byte */
	char *out = logged("caf\xc3\xa9\tmain");
	assert_string_equal(out, "<4>watching process 42 (caf\xc3\xa9\tmain): private 1 MiB\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_bytes_escaped),
		cmocka_unit_test(test_valid_text_unchanged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
