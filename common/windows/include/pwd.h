/* POSIX's user database, which Windows has not: an account there is a SID,
 * and the store keeps a Windows process's owner as its name in text
 * (processes.owner).  No uid has a name here: getpwuid_r finds no one, as
 * POSIX says a lookup that finds nothing answers (0, *ret NULL). */
#pragma once

#include <stddef.h>

typedef unsigned int uid_t;
typedef unsigned int gid_t;

struct passwd {
	char *pw_name;
	char *pw_dir;
	uid_t pw_uid;
	gid_t pw_gid;
};

/* Windows's accounts are SIDs, not uids: no name is a uid's (the
 * daemon's user: selectors pick no Windows process) */
static inline int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t size, struct passwd **ret)
{
	(void)name;
	(void)pw;
	(void)buf;
	(void)size;
	*ret = NULL;
	return 0;
}

static inline int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t size, struct passwd **ret)
{
	(void)uid;
	(void)pw;
	(void)buf;
	(void)size;
	*ret = NULL;
	return 0;
}
