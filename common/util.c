/* Small pure helpers shared by the scanner, the daemon and the client. */
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int array_grow(void **v, size_t n, size_t *allocated, size_t size, size_t first)
{
	if (n < *allocated)
		return 0;
	size_t want = *allocated ? *allocated * 2 : first;
	void *p = realloc(*v, want * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*allocated = want;
	return 0;
}

bool endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int digit_value(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_u64_n(const char *s, size_t len, unsigned base, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0 || (base != 10 && base != 16))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int d = digit_value(s[i], base);
		if (d < 0)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*ret = v;
	return 0;
}

int parse_u64(const char *s, unsigned base, uint64_t *ret)
{
	return parse_u64_n(s, strlen(s), base, ret);
}

int parse_pid(const char *s, int *ret)
{
	uint64_t v;
	int r = parse_u64(s, 10, &v);
	if (r < 0)
		return r;
	if (v == 0 || v > INT32_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

char *format_bytes(char *buf, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, FORMAT_BYTES_MAX, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	/* three significant digits, but never "1024 KiB" after rounding */
	if (v >= 999.5 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (v >= 99.95)
		snprintf(buf, FORMAT_BYTES_MAX, "%.0f %s", v, units[u]);
	else if (v >= 9.995)
		snprintf(buf, FORMAT_BYTES_MAX, "%.1f %s", v, units[u]);
	else
		snprintf(buf, FORMAT_BYTES_MAX, "%.2f %s", v, units[u]);
	return buf;
}

char *format_bytes_delta(char *buf, int64_t delta)
{
	char tmp[FORMAT_BYTES_MAX];
	uint64_t magnitude = delta < 0 ? (uint64_t)0 - (uint64_t)delta : (uint64_t)delta;

	format_bytes(tmp, magnitude); /* at most "1023 EiB" */
	snprintf(buf, FORMAT_BYTES_MAX, "%s%.20s", delta > 0 ? "+" : delta < 0 ? "-" : "", tmp);
	return buf;
}

char *format_duration_us(char *buf, uint64_t us)
{
	if (us < 1000)
		snprintf(buf, FORMAT_DURATION_MAX, "%" PRIu64 " us", us);
	else if (us < 1000000)
		snprintf(buf, FORMAT_DURATION_MAX, "%.1f ms", (double)us / 1e3);
	else
		snprintf(buf, FORMAT_DURATION_MAX, "%.2f s", (double)us / 1e6);
	return buf;
}

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t now_monotonic_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

uint64_t now_thread_cpu_us(void)
{
	return clock_us(CLOCK_THREAD_CPUTIME_ID);
}

int64_t now_realtime_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool glob_match(const char *pattern, const char *s)
{
	if (!pattern)
		return true;
	return fnmatch(pattern, s ? s : "", 0) == 0;
}
