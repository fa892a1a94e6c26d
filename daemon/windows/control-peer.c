/* Reading a control peer on Windows (control-access.h): the account of
 * the client's process, from its token.
 *
 * The pipe says which process is at the other end
 * (GetNamedPipeClientProcessId); its primary token says its user (a SID)
 * and whether it holds Administrators (CheckTokenMembership, which counts
 * a group the token holds for deny only, as a non-elevated
 * administrator's filtered token does, as not held).  The daemon does not
 * impersonate the client to find out (ImpersonateNamedPipeClient): under
 * Wine that impersonates the server itself, and a token read is all that
 * is needed.  The daemon runs as LocalSystem, which may open every
 * process's token but protected ones'. */
#include "control-access.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <windows.h>
#include <sddl.h>

#include "control-peer.h"
#include "error.h"
#include "win-owner.h"

_Static_assert(CONTROL_SID_MAX == 4 + 14 + 11 * 15 + 1, "a SID's longest text (win-sid.h)");
_Static_assert(CONTROL_OWNER_MAX == WIN_OWNER_NAME_MAX, "an account's longest name (win-owner.h)");

/* The user SID of token as text into buf.  Returns 0 or -errno. */
static int token_user(HANDLE token, char *buf, size_t size)
{
	union {
		TOKEN_USER user;
		unsigned char bytes[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	} u;
	DWORD n = 0;
	char *text = NULL;

	if (!GetTokenInformation(token, TokenUser, &u, sizeof(u), &n))
		return -posix_errno_of(GetLastError());
	if (!ConvertSidToStringSidA(u.user.User.Sid, &text))
		return -posix_errno_of(GetLastError());
	int r = strlen(text) < size ? 0 : -ENAMETOOLONG;
	if (r == 0)
		snprintf(buf, size, "%s", text);
	LocalFree(text);
	return r;
}

/* Whether token holds BUILTIN\Administrators, enabled. */
static bool token_administrator(HANDLE token)
{
	SID_IDENTIFIER_AUTHORITY nt = { SECURITY_NT_AUTHORITY };
	PSID admins = NULL;
	HANDLE imp = NULL;
	BOOL member = FALSE;

	if (!AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_ADMINS, 0, 0, 0, 0, 0, 0,
				      &admins))
		return false;
	/* CheckTokenMembership wants an impersonation token */
	if (DuplicateToken(token, SecurityIdentification, &imp)) {
		if (!CheckTokenMembership(imp, admins, &member))
			member = FALSE;
		CloseHandle(imp);
	}
	FreeSid(admins);
	return member;
}

int control_peer_of_process(uint32_t pid, struct control_peer *ret)
{
	struct control_peer p = { .pid = (pid_t)pid, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	HANDLE process, token;
	int r;

	process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	if (!process)
		return -posix_errno_of(GetLastError());
	if (!OpenProcessToken(process, TOKEN_QUERY | TOKEN_DUPLICATE, &token)) {
		r = -posix_errno_of(GetLastError());
		CloseHandle(process);
		return r;
	}
	r = token_user(token, p.sid, sizeof(p.sid));
	if (r == 0)
		p.privileged = control_access_privileged_account(p.sid, token_administrator(token));
	CloseHandle(token);
	CloseHandle(process);
	if (r < 0)
		return r;
	/* the name the store gives the peer's processes (windows/target.c):
	 * what store reads compare, where a name is what they hold */
	struct win_owner owner;
	struct error err = { 0 };
	if (win_owner_read(pid, &owner, &err) == 0 && strcasecmp(owner.sid, p.sid) == 0)
		snprintf(p.owner, sizeof(p.owner), "%s", owner.name[0] ? owner.name : owner.sid);
	else
		snprintf(p.owner, sizeof(p.owner), "%s", p.sid);
	*ret = p;
	return 0;
}

const char *control_user_name(uid_t uid, char *buf, size_t size)
{
	(void)uid, (void)buf, (void)size;
	return NULL;
}
