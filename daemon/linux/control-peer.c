/* Reading a control peer on Linux (control-access.h): the kernel's
 * credentials of the socket's other end (SO_PEERCRED), and whether that
 * user is root or a member of group ramwatch, looked up for each
 * connection so that adding a user to the group takes effect at their
 * next connection, without a restart. */
#include "control-access.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"

/* Scratch space for getpwuid_r/getgrnam_r: sysconf may say -1 (no limit);
 * a group with many members needs more than the usual 1 KiB. */
#define NSS_BUF_FIRST 4096u
#define NSS_BUF_MAX (1024u * 1024u)
/* getgrouplist: the kernel's NGROUPS_MAX is 65536 */
#define GROUPS_MAX 65536

/* The gid of CONTROL_GROUP: 1 with *ret, 0 when there is no such group,
 * or -errno. */
static int group_gid(gid_t *ret)
{
	size_t size = NSS_BUF_FIRST;
	struct group g, *found = NULL;

	for (;;) {
		_cleanup_free_ char *buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		int r = getgrnam_r(CONTROL_GROUP, &g, buf, size, &found);
		if (r == ERANGE && size < NSS_BUF_MAX) {
			size *= 2;
			continue;
		}
		if (r != 0)
			return -r;
		if (!found)
			return 0;
		*ret = g.gr_gid;
		return 1;
	}
}

/* The user's name and primary gid: 1, 0 when uid has no passwd entry, or
 * -errno. */
static int user_entry(uid_t uid, char **ret_name, gid_t *ret_gid)
{
	size_t size = NSS_BUF_FIRST;
	struct passwd pw, *found = NULL;

	for (;;) {
		_cleanup_free_ char *buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		int r = getpwuid_r(uid, &pw, buf, size, &found);
		if (r == ERANGE && size < NSS_BUF_MAX) {
			size *= 2;
			continue;
		}
		if (r != 0)
			return -r;
		if (!found)
			return 0;
		char *name = strdup(pw.pw_name);
		if (!name)
			return -ENOMEM;
		*ret_name = name;
		*ret_gid = pw.pw_gid;
		return 1;
	}
}

/* The groups of a user (its primary gid included), newly allocated. */
static int user_groups(const char *name, gid_t primary, gid_t **ret, size_t *ret_n)
{
	int n = 64;

	for (;;) {
		gid_t *groups = calloc((size_t)n, sizeof(gid_t));
		int got = n;
		if (!groups)
			return -ENOMEM;
		if (getgrouplist(name, primary, groups, &got) >= 0) {
			*ret = groups;
			*ret_n = (size_t)got;
			return 0;
		}
		free(groups);
		/* -1: too small, and got says how many there are */
		if (got <= n || got > GROUPS_MAX)
			return -ERANGE;
		n = got;
	}
}

/* Whether uid (whose process runs with gid) is root or in CONTROL_GROUP.
 * A lookup that fails leaves the peer unprivileged: it then sees its own
 * processes, which is never more than it may. */
static bool peer_privileged(uid_t uid, gid_t gid)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_free_ gid_t *groups = NULL;
	size_t n = 0;
	gid_t group = 0, primary;

	if (uid == 0)
		return true;
	int exists = group_gid(&group);
	if (exists <= 0)
		return false;
	if (user_entry(uid, &name, &primary) > 0 && user_groups(name, primary, &groups, &n) < 0)
		n = 0;
	return control_access_privileged(uid, gid, true, group, groups, n);
}

int control_peer_read(int fd, struct control_peer *ret)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (len != sizeof(cred))
		return -EIO;
	*ret = (struct control_peer){
		.pid = cred.pid,
		.uid = cred.uid,
		.gid = cred.gid,
		.privileged = peer_privileged(cred.uid, cred.gid),
	};
	return 0;
}

const char *control_user_name(uid_t uid, char *buf, size_t size)
{
	_cleanup_free_ char *name = NULL;
	gid_t gid;

	if (size == 0 || user_entry(uid, &name, &gid) <= 0)
		return NULL;
	snprintf(buf, size, "%s", name);
	return buf;
}
