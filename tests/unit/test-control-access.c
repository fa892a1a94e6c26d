/* Who is privileged, given a user's groups; who may see what; what a
 * denial says; the credentials of a real socket peer. */
#include "testlib.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control-access.h"

static void test_privileged(void **state)
{
	(void)state;
	const gid_t groups[] = { 1000, 27, 4242 };

	/* root, whatever the groups */
	assert_true(control_access_privileged(0, 0, false, 0, NULL, 0));
	/* no group "ramwatch": only root */
	assert_false(control_access_privileged(1000, 4242, false, 4242, groups, 3));
	/* a supplementary group */
	assert_true(control_access_privileged(1000, 1000, true, 4242, groups, 3));
	/* the primary group of the process (not in the list) */
	assert_true(control_access_privileged(1000, 4242, true, 4242, groups, 1));
	/* neither */
	assert_false(control_access_privileged(1000, 1000, true, 555, groups, 3));
	assert_false(control_access_privileged(1000, 1000, true, 555, NULL, 0));
	/* gid 0 is not uid 0 */
	assert_false(control_access_privileged(1000, 0, true, 555, groups, 3));
}

static void test_may_see(void **state)
{
	(void)state;
	struct control_peer root = { .uid = 0, .privileged = true };
	struct control_peer member = { .uid = 1001, .privileged = true };
	struct control_peer ana = { .uid = 1000 };

	assert_true(control_peer_only_uid(&root) == -1);
	assert_true(control_peer_only_uid(&member) == -1);
	assert_true(control_peer_only_uid(&ana) == 1000);

	assert_true(control_peer_may_see(&root, 1000));
	assert_true(control_peer_may_see(&root, -1));
	assert_true(control_peer_may_see(&member, 0));
	assert_true(control_peer_may_see(&ana, 1000));
	assert_false(control_peer_may_see(&ana, 1001));
	assert_false(control_peer_may_see(&ana, 0));
	/* an owner not known is not the asker */
	assert_false(control_peer_may_see(&ana, -1));
}

/* The same rule over Windows accounts: LocalSystem and Administrators see
 * all; a user, the processes of its SID (compared without case); an
 * unknown owner, nobody but the privileged. */
static void test_windows_accounts(void **state)
{
	(void)state;
	const char *user = "S-1-5-21-1004336348-1177238915-682003330-1001";

	assert_true(control_access_privileged_account(CONTROL_SID_LOCAL_SYSTEM, false));
	assert_true(control_access_privileged_account(user, true));
	assert_false(control_access_privileged_account(user, false));
	/* LocalService and NetworkService are not LocalSystem */
	assert_false(control_access_privileged_account("S-1-5-19", false));
	assert_false(control_access_privileged_account("S-1-5-20", false));
	assert_false(control_access_privileged_account("S-1-5-18-1", false));

	struct control_peer p = { .pid = 4, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	snprintf(p.sid, sizeof(p.sid), "%s", user);
	assert_true(control_peer_may_see_account(&p, -1, user));
	assert_true(control_peer_may_see_account(&p, -1, "s-1-5-21-1004336348-1177238915-682003330-1001"));
	assert_false(control_peer_may_see_account(&p, -1, "S-1-5-21-1004336348-1177238915-682003330-1002"));
	assert_false(control_peer_may_see_account(&p, -1, NULL));
	/* a uid that happens to match means nothing to a Windows peer */
	assert_false(control_peer_may_see_account(&p, (int64_t)(uid_t)-1, NULL));
	/* nor its owner text, without a name for its account */
	assert_null(control_peer_only_owner(&p));
	/* the store names its processes by the account's name: that is its
	 * filter, and a process of that name is its own */
	snprintf(p.owner, sizeof(p.owner), "%s", "DESKTOP-1\\ana");
	assert_string_equal(control_peer_only_owner(&p), "DESKTOP-1\\ana");
	assert_true(control_peer_may_see_account(&p, -1, "desktop-1\\ANA"));
	assert_true(control_peer_may_see_account(&p, -1, user));
	assert_false(control_peer_may_see_account(&p, -1, "DESKTOP-1\\bob"));
	char message[512];
	control_denied_account_message(message, sizeof(message), 4242, "python.exe", "DESKTOP-1\\bob", user);
	assert_string_equal(message, "process 4242 (python.exe) belongs to DESKTOP-1\\bob; you "
				     "(S-1-5-21-1004336348-1177238915-682003330-1001) may see only your own processes; "
				     "Administrators and LocalSystem see all");
	char who[CONTROL_ACCOUNT_TEXT_MAX];
	assert_string_equal(control_peer_account(&p, who, sizeof(who)), user);
	p.privileged = true;
	assert_true(control_peer_may_see_account(&p, -1, NULL));
	assert_null(control_peer_only_owner(&p));

	struct control_peer q = { .pid = 5, .uid = 1000, .gid = 1000 };
	assert_string_equal(control_peer_account(&q, who, sizeof(who)), "uid 1000");
	assert_true(control_peer_may_see_account(&q, 1000, NULL));
	assert_false(control_peer_may_see_account(&q, 1000 + 1, user));
}

static void test_messages(void **state)
{
	(void)state;
	char buf[512];

	control_denied_message(buf, sizeof(buf), 4242, "python3", 1001, "bob", 1000);
	assert_string_equal(buf, "process 4242 (python3) belongs to uid 1001 (bob); you (uid 1000) may see only "
				 "your own processes; members of group ramwatch see all");
	control_denied_message(buf, sizeof(buf), 7, NULL, 0, NULL, 1000);
	assert_string_equal(buf, "process 7 belongs to uid 0; you (uid 1000) may see only your own processes; "
				 "members of group ramwatch see all");
	control_denied_message(buf, sizeof(buf), 7, "x", -1, NULL, 1000);
	assert_non_null(strstr(buf, "process 7 (x) has no known owner; you (uid 1000)"));

	/* the store's reason is completed with the rule, once */
	control_denied_suffix(buf, sizeof(buf), "process 12 (java) belongs to uid 0 (root)", 1000);
	assert_string_equal(buf, "process 12 (java) belongs to uid 0 (root); you (uid 1000) may see only your own "
				 "processes; members of group ramwatch see all");
	char again[512];
	control_denied_suffix(again, sizeof(again), buf, 1000);
	assert_string_equal(again, buf);
	control_denied_suffix(buf, sizeof(buf), NULL, 5);
	assert_non_null(strstr(buf, "not your process; you (uid 5)"));

	/* a message never overflows */
	char small[16];
	control_denied_message(small, sizeof(small), 4242, "python3", 1001, "bob", 1000);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_peer_of_a_socket(void **state)
{
	(void)state;
	int sv[2];
	struct control_peer p;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(control_peer_read(sv[0], &p), 0);
	assert_int_equal(p.pid, getpid());
	assert_int_equal(p.uid, getuid());
	assert_int_equal(p.gid, getgid());
	if (getuid() == 0)
		assert_true(p.privileged);
	close(sv[0]);
	close(sv[1]);

	/* not a socket */
	assert_int_equal(pipe(sv), 0);
	assert_int_equal(control_peer_read(sv[0], &p), -ENOTSOCK);
	close(sv[0]);
	close(sv[1]);

	char name[64];
	if (getuid() == 0)
		assert_string_equal(control_user_name(0, name, sizeof(name)), "root");
	/* a uid nobody has */
	assert_null(control_user_name(2000000000u, name, sizeof(name)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_privileged),
		cmocka_unit_test(test_may_see),
		cmocka_unit_test(test_windows_accounts),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_peer_of_a_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
