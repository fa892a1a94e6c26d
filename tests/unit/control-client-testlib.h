/* Helpers of the client's tests (test-control-client.c,
 * test-render-answers.c): canned answers parsed, what a renderer writes
 * captured, a fixed time zone. */
#pragma once

#include "testlib.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "census-json.h"
#include "census.h"
#include "control-client.h"
#include "limits.h"
#include "render-answer.h"
#include "scan.h"
#include "text.h"

static inline int set_zone(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

static inline char *capture_json(int (*fn)(const json_t *, FILE *), const json_t *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(j, f), 0);
	fclose(f);
	return buf;
}

static inline json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("canned JSON: %s at %d", e.text, e.position);
	return j;
}

#define assert_contains(text, needle)                                               \
	do {                                                                         \
		if (!strstr((text), (needle)))                                       \
			fail_msg("'%s' not found in:\n%s", (needle), (text));       \
	} while (0)

