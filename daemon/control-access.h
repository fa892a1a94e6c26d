/* Who is asking, and what they may see (doc/protocol.md, "Who may see
 * what").
 *
 * One rule on every platform: a caller sees, scans and marks the
 * processes of its own account; the privileged see every process.  On
 * Linux the account is a uid, read from the kernel (SO_PEERCRED, at
 * accept), and root and the members of group "ramwatch" are privileged
 * (linux/control-peer.c: membership is looked up for each connection, so
 * adding a user to the group takes effect at their next connection,
 * without a restart).  On Windows the account is the user SID of the
 * client's process token (windows/control-peer.c), and Administrators (an
 * elevated token: a filtered one holds the group for deny only) and
 * LocalSystem are privileged. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTROL_GROUP "ramwatch"

/* LocalSystem's SID, privileged on Windows */
#define CONTROL_SID_LOCAL_SYSTEM "S-1-5-18"
/* The longest SID text, its NUL included (win-sid.h's WIN_SID_TEXT_MAX) */
#define CONTROL_SID_MAX 184
/* The longest account name, its NUL included (win-owner.h's
 * WIN_OWNER_NAME_MAX) */
#define CONTROL_OWNER_MAX 1542

struct control_peer {
	pid_t pid;
	uid_t uid;       /* Linux: the account */
	gid_t gid;
	char sid[CONTROL_SID_MAX]; /* Windows: the account ("S-1-5-21-..."); "" on Linux */
	/* Windows: the account as the store names a process's owner
	 * (DOMAIN\account, or the SID where it has no name); "" on Linux */
	char owner[CONTROL_OWNER_MAX];
	bool privileged; /* root, or in CONTROL_GROUP; an Administrator or LocalSystem */
};

/* Reads the peer of a connected Unix socket and decides whether it is
 * privileged (Linux).  Returns 0 with *ret, or the -errno of getsockopt. */
int control_peer_read(int fd, struct control_peer *ret);

/* The decision, pure: uid 0 is privileged; else a user is when the group
 * exists (group_exists) and is the peer's gid, or among groups (its
 * groups per getgrouplist, primary included).  groups may be NULL when
 * n is 0. */
bool control_access_privileged(uid_t uid, gid_t peer_gid, bool group_exists, gid_t group, const gid_t *groups,
			       size_t n);

/* Windows's decision, pure: LocalSystem (sid) or a member of
 * Administrators (administrator, as the token says) is privileged. */
bool control_access_privileged_account(const char *sid, bool administrator);

/* The peer's account for the log, into buf: "uid 1000"; on Windows its
 * SID.  Returns buf. */
#define CONTROL_ACCOUNT_TEXT_MAX (CONTROL_SID_MAX + 8)
const char *control_peer_account(const struct control_peer *p, char *buf, size_t size);

/* -1 (no filter) for a privileged peer, else its uid: the only_uid of
 * store reads.  A Windows peer's uid is (uid_t)-1, which no process has:
 * its own processes are those of control_peer_only_owner. */
int64_t control_peer_only_uid(const struct control_peer *p);
/* NULL for a privileged peer or one without an account name (Linux's),
 * else the owner text of its processes in the store: the only_owner of
 * store reads (store-read.h), beside only_uid. */
const char *control_peer_only_owner(const struct control_peer *p);

/* The rule: whether the peer may see a process owned by owner_uid (-1:
 * unknown) or, on Windows, by the account owner_sid (its SID, or its owner
 * text as the store has it: either names the peer's account; NULL:
 * unknown); an unknown owner is seen by privileged peers only. */
bool control_peer_may_see_account(const struct control_peer *p, int64_t owner_uid, const char *owner_sid);
/* The same for a process of real uid owner. */
bool control_peer_may_see(const struct control_peer *p, int64_t owner);

/* The name of a user, into buf; NULL when it has none (or the lookup
 * failed, and always on Windows, where a uid names no one). */
const char *control_user_name(uid_t uid, char *buf, size_t size);

/* Why a peer may not see a process, for the peer:
 *   process 4242 (python3) belongs to uid 1001 (bob); you (uid 1000) may
 *   see only your own processes; members of group ramwatch see all
 * comm and owner_name may be NULL; owner -1 when unknown. */
void control_denied_message(char *buf, size_t size, int pid, const char *comm, int64_t owner,
			    const char *owner_name, uid_t peer);

/* The same on Windows, where accounts are SIDs:
 *   process 4242 (python.exe) belongs to S-1-5-21-...-1002; you
 *   (S-1-5-21-...-1001) may see only your own processes; Administrators
 *   and LocalSystem see all
 * comm may be NULL. */
void control_denied_account_message(char *buf, size_t size, int pid, const char *comm, const char *owner,
				    const char *peer);

/* The reason of a denial the store gave (which names the process and its
 * owner), completed with the rule, as control_denied_message says it. */
void control_denied_suffix(char *buf, size_t size, const char *reason, uid_t peer);
