/* SIDs as text (daemon/windows/win-sid.c): the well-known ones and a
 * user's as Windows writes them (checked against ConvertSidToStringSid
 * under Wine by tests/windows/test_win_watch.py), an authority past 32
 * bits in hex, the most sub-authorities a SID may have, and bytes that
 * are not a SID or do not fit. */
#include "testlib.h"

#include <errno.h>

#include "win-sid.h"

static int format(const uint8_t *sid, size_t len, char *buf, size_t size)
{
	return win_sid_format(sid, len, buf, size);
}

static void test_known(void **state)
{
	(void)state;
	char buf[WIN_SID_TEXT_MAX];
	/* LocalSystem: S-1-5-18 */
	static const uint8_t system[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
	assert_int_equal(format(system, sizeof(system), buf, sizeof(buf)), 8);
	assert_string_equal(buf, "S-1-5-18");
	/* Everyone: S-1-1-0 */
	static const uint8_t everyone[] = { 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	assert_int_equal(format(everyone, sizeof(everyone), buf, sizeof(buf)), 7);
	assert_string_equal(buf, "S-1-1-0");
	/* a user: S-1-5-21-1004336348-1177238915-682003330-1001 */
	static const uint8_t user[] = { 1,    5,    0,    0,    0,    0,    0,    5,    21,   0,    0,    0,    0xdc, 0xf4,
					0xdc, 0x3b, 0x83, 0x3d, 0x2b, 0x46, 0x82, 0x8b, 0xa6, 0x28, 0xe9, 0x03, 0,    0 };
	assert_int_equal(format(user, sizeof(user), buf, sizeof(buf)), 45);
	assert_string_equal(buf, "S-1-5-21-1004336348-1177238915-682003330-1001");
	/* no sub-authority (the null authority's own) */
	static const uint8_t bare[] = { 1, 0, 0, 0, 0, 0, 0, 0 };
	assert_int_equal(format(bare, sizeof(bare), buf, sizeof(buf)), 5);
	assert_string_equal(buf, "S-1-0");
}

/* The longest text a SID can have fits WIN_SID_TEXT_MAX exactly. */
static void test_longest(void **state)
{
	(void)state;
	uint8_t sid[WIN_SID_BYTES_MAX] = { 1, WIN_SID_SUB_AUTHORITIES_MAX, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	char buf[WIN_SID_TEXT_MAX];

	memset(sid + 8, 0xff, sizeof(sid) - 8);
	int n = format(sid, sizeof(sid), buf, sizeof(buf));
	assert_int_equal(n, WIN_SID_TEXT_MAX - 1);
	assert_memory_equal(buf, "S-1-0xFFFFFFFFFFFF-4294967295-", 30);
	/* one byte less for the text: refused, not cut */
	assert_int_equal(format(sid, sizeof(sid), buf, sizeof(buf) - 1), -ENOSPC);
	assert_int_equal(format(sid, sizeof(sid), buf, 4), -ENOSPC);
	/* an authority of exactly 2^32 is the first in hex */
	static const uint8_t big[] = { 1, 0, 0, 1, 0, 0, 0, 0 };
	assert_int_equal(format(big, sizeof(big), buf, sizeof(buf)), 18);
	assert_string_equal(buf, "S-1-0x000100000000");
	static const uint8_t below[] = { 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	format(below, sizeof(below), buf, sizeof(buf));
	assert_string_equal(buf, "S-1-4294967295");
}

static void test_not_a_sid(void **state)
{
	(void)state;
	char buf[WIN_SID_TEXT_MAX];
	uint8_t sid[WIN_SID_BYTES_MAX + 4] = { 1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 2, 0, 0 };

	assert_int_equal(format(sid, 16, buf, sizeof(buf)), 12);
	assert_string_equal(buf, "S-1-5-32-544");
	/* fewer bytes than the count says, down to none */
	for (size_t len = 0; len < 16; len++)
		assert_int_equal(format(sid, len, buf, sizeof(buf)), -EBADMSG);
	/* a revision other than 1 */
	sid[0] = 2;
	assert_int_equal(format(sid, 16, buf, sizeof(buf)), -EBADMSG);
	sid[0] = 1;
	/* one sub-authority past the most a SID may have */
	sid[1] = WIN_SID_SUB_AUTHORITIES_MAX + 1;
	assert_int_equal(format(sid, sizeof(sid), buf, sizeof(buf)), -EBADMSG);
	sid[1] = WIN_SID_SUB_AUTHORITIES_MAX;
	assert_true(format(sid, sizeof(sid), buf, sizeof(buf)) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_longest),
		cmocka_unit_test(test_not_a_sid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
