/* Who may see what (control-access.h): the rule and the messages that
 * say it, the same on every platform.  Reading a peer is the
 * platform's: linux/control-peer.c (credentials, group membership),
 * windows/control-peer.c (the token's user and groups). */
#include "control-access.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

bool control_access_privileged(uid_t uid, gid_t peer_gid, bool group_exists, gid_t group, const gid_t *groups,
			       size_t n)
{
	if (uid == 0)
		return true;
	if (!group_exists)
		return false;
	if (peer_gid == group)
		return true;
	for (size_t i = 0; i < n; i++)
		if (groups[i] == group)
			return true;
	return false;
}

const char *control_peer_account(const struct control_peer *p, char *buf, size_t size)
{
	if (p->sid[0])
		snprintf(buf, size, "%s", p->sid);
	else
		snprintf(buf, size, "uid %u", (unsigned)p->uid);
	return buf;
}

int64_t control_peer_only_uid(const struct control_peer *p)
{
	return p->privileged ? -1 : (int64_t)p->uid;
}

const char *control_peer_only_owner(const struct control_peer *p)
{
	return p->privileged || !p->owner[0] ? NULL : p->owner;
}

bool control_peer_may_see_account(const struct control_peer *p, int64_t owner_uid, const char *owner_sid)
{
	if (p->privileged)
		return true;
	/* a Windows peer is its SID, or its account's name (SIDs are written
	 * in capitals, but compared as Windows does, without case; so are
	 * names) */
	if (p->sid[0])
		return owner_sid &&
		       (strcasecmp(owner_sid, p->sid) == 0 || (p->owner[0] && strcasecmp(owner_sid, p->owner) == 0));
	return owner_uid >= 0 && owner_uid == (int64_t)p->uid;
}

bool control_peer_may_see(const struct control_peer *p, int64_t owner)
{
	return control_peer_may_see_account(p, owner, NULL);
}

bool control_access_privileged_account(const char *sid, bool administrator)
{
	return administrator || (sid && strcasecmp(sid, CONTROL_SID_LOCAL_SYSTEM) == 0);
}


#define RULE "may see only your own processes; members of group " CONTROL_GROUP " see all"

void control_denied_message(char *buf, size_t size, int pid, const char *comm, int64_t owner,
			    const char *owner_name, uid_t peer)
{
	char who[128], what[128];

	if (comm)
		snprintf(what, sizeof(what), "process %d (%.64s)", pid, comm);
	else
		snprintf(what, sizeof(what), "process %d", pid);
	if (owner < 0)
		snprintf(who, sizeof(who), "has no known owner");
	else if (owner_name)
		snprintf(who, sizeof(who), "belongs to uid %lld (%.64s)", (long long)owner, owner_name);
	else
		snprintf(who, sizeof(who), "belongs to uid %lld", (long long)owner);
	snprintf(buf, size, "%s %s; you (uid %u) " RULE, what, who, (unsigned)peer);
}

void control_denied_account_message(char *buf, size_t size, int pid, const char *comm, const char *owner,
				    const char *peer)
{
	char what[128];

	if (comm)
		snprintf(what, sizeof(what), "process %d (%.64s)", pid, comm);
	else
		snprintf(what, sizeof(what), "process %d", pid);
	snprintf(buf, size, "%s belongs to %s; you (%s) may see only your own processes; Administrators and "
		 "LocalSystem see all", what, owner, peer);
}

void control_denied_suffix(char *buf, size_t size, const char *reason, uid_t peer)
{
	if (reason && strstr(reason, "members of group"))
		snprintf(buf, size, "%s", reason);
	else
		snprintf(buf, size, "%s; you (uid %u) " RULE, reason && *reason ? reason : "not your process",
			 (unsigned)peer);
}
