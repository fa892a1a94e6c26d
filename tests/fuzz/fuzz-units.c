/* libFuzzer target: the size and duration grammars (units.h) and the time
 * parser (timeparse.h), the grammars of every option, the configuration
 * and the SQL limits.  The input is one text, given to each parser whole.
 * Nothing may crash or read past the text, a parser must leave its result
 * untouched when it refuses, and whatever a formatter writes must parse
 * back to the same value: a mismatch aborts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "limits.h"
#include "timeparse.h"
#include "units.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

/* a value from the input's first bytes, for the formatters */
static uint64_t value_of(const uint8_t *data, size_t size)
{
	uint64_t v = 0;
	memcpy(&v, data, size < sizeof(v) ? size : sizeof(v));
	/* small values are the common case: shift by the ninth byte */
	if (size > sizeof(v))
		v >>= data[sizeof(v)] % 64;
	return v;
}

static void check_size(const char *s)
{
	uint64_t v = UNTOUCHED;
	int r = units_parse_size(s, &v);
	if (r < 0) {
		if ((r != -EINVAL && r != -ERANGE) || v != UNTOUCHED)
			abort();
		return;
	}
	if (r != 0)
		abort();
	char buf[UNITS_FORMAT_MAX];
	uint64_t back = UNTOUCHED;
	if (units_parse_size(units_format_size(buf, v), &back) != 0 || back != v)
		abort();
}

static void check_duration(const char *s)
{
	static const uint64_t units[] = { 1, UNITS_USEC_PER_MS, UNITS_USEC_PER_SEC };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t v = UNTOUCHED;
		int r = units_parse_duration(s, units[i], &v);
		if (r < 0) {
			if ((r != -EINVAL && r != -ERANGE) || v != UNTOUCHED)
				abort();
			continue;
		}
		if (r != 0)
			abort();
		if (units[i] == 1) {
			char buf[UNITS_FORMAT_MAX];
			uint64_t back = UNTOUCHED;
			if (units_parse_duration(units_format_duration(buf, v), 1, &back) != 0 || back != v)
				abort();
		}
	}
}

static void check_time(const char *s)
{
	/* a fixed "now", so that a crash reproduces */
	const int64_t now = 1764424800000;
	int64_t t = (int64_t)UNTOUCHED;
	int r = timeparse_time(s, now, &t);
	if (r < 0) {
		if ((r != -EINVAL && r != -ERANGE) || t != (int64_t)UNTOUCHED)
			abort();
		return;
	}
	if (r != 0 || t < 0)
		abort();
	/* a table's time reads back to the same second */
	char buf[TIMEPARSE_FORMAT_MAX];
	int64_t back = -1;
	if (timeparse_time(timeparse_format_local(buf, t), now, &back) != 0 || back != t / 1000 * 1000)
		abort();
}

static void check_formatters(uint64_t v)
{
	char buf[UNITS_FORMAT_MAX], tbuf[TIMEPARSE_FORMAT_MAX];
	uint64_t back = UNTOUCHED;
	if (units_parse_size(units_format_size(buf, v), &back) != 0 || back != v)
		abort();
	back = UNTOUCHED;
	if (units_parse_duration(units_format_duration(buf, v), 1, &back) != 0 || back != v)
		abort();
	/* the span and the clock must only stay within their buffers */
	int64_t ms = (int64_t)(v >> 1);
	(void)timeparse_format_span(tbuf, ms);
	(void)timeparse_format_span(tbuf, -ms);
	(void)timeparse_format_clock(tbuf, ms % (8000LL * 365 * 86400000LL));
	(void)timeparse_format_local(tbuf, -ms);
}

/* Local time in UTC: a local time in a DST change's repeated hour reads
 * back as either of the two instants, which would be no bug. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* past the limit the parsers must refuse, not read on */
	if (size > 2 * RW_UNITS_TEXT_MAX)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_size(s);
	check_duration(s);
	check_time(s);
	check_formatters(value_of(data, size));
	free(s);
	return 0;
}
