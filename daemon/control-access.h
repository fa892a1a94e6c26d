/* Who is asking, and what they may see (doc/protocol.md, "Who may see
 * what").
 *
 * The kernel says who the peer is (SO_PEERCRED, at accept).  Root and the
 * members of group "ramwatch" see every process; anyone else sees, scans
 * and marks only processes whose real uid is theirs.  Membership is looked
 * up for each connection, so adding a user to the group takes effect at
 * their next connection, without a restart. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTROL_GROUP "ramwatch"

struct control_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool privileged; /* root, or in CONTROL_GROUP */
};

/* Reads the peer of a connected Unix socket and decides whether it is
 * privileged.  Returns 0 with *ret, or the -errno of getsockopt. */
int control_peer_read(int fd, struct control_peer *ret);

/* The decision, pure: uid 0 is privileged; else a user is when the group
 * exists (group_exists) and is the peer's gid, or among groups (its
 * groups per getgrouplist, primary included).  groups may be NULL when
 * n is 0. */
bool control_access_privileged(uid_t uid, gid_t peer_gid, bool group_exists, gid_t group, const gid_t *groups,
			       size_t n);

/* -1 (no filter) for a privileged peer, else its uid: the only_uid of
 * store reads. */
int64_t control_peer_only_uid(const struct control_peer *p);

/* Whether the peer may see a process of real uid owner (-1: unknown, seen
 * by privileged peers only). */
bool control_peer_may_see(const struct control_peer *p, int64_t owner);

/* The name of a user, into buf; NULL when it has none (or the lookup
 * failed). */
const char *control_user_name(uid_t uid, char *buf, size_t size);

/* Why a peer may not see a process, for the peer:
 *   process 4242 (python3) belongs to uid 1001 (bob); you (uid 1000) may
 *   see only your own processes; members of group ramwatch see all
 * comm and owner_name may be NULL; owner -1 when unknown. */
void control_denied_message(char *buf, size_t size, int pid, const char *comm, int64_t owner,
			    const char *owner_name, uid_t peer);

/* The reason of a denial the store gave (which names the process and its
 * owner), completed with the rule, as control_denied_message says it. */
void control_denied_suffix(char *buf, size_t size, const char *reason, uid_t peer);
