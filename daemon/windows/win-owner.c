/* See win-owner.h.  The token is read with TOKEN_QUERY: the SID of
 * TokenUser, formatted by win_sid_format, then its account's name as the
 * scanner names a census's owner (win_text_account: LookupAccountSidW,
 * which can take a domain controller's round trip for a domain account,
 * so a caller looks an owner up once per process, not every round). */
#include "win-owner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "macro.h"
#include "win-text.h"

static int open_error(uint32_t pid, const char *what, DWORD e, struct error *err)
{
	if (e == ERROR_INVALID_PARAMETER)
		return error_set(err, -ESRCH, "no process %u", (unsigned)pid);
	if (e == ERROR_ACCESS_DENIED)
		return error_set(err, -EACCES, "access denied to the %s of process %u", what, (unsigned)pid);
	return error_set(err, -EIO, "cannot open the %s of process %u: Windows error %lu", what, (unsigned)pid,
			 (unsigned long)e);
}

int win_owner_read(uint32_t pid, struct win_owner *ret, struct error *err)
{
	union {
		TOKEN_USER user;
		char bytes[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
	} info;
	HANDLE h, token;
	DWORD len = 0;
	int r;

	if (!(h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid)))
		return open_error(pid, "process", GetLastError(), err);
	if (!OpenProcessToken(h, TOKEN_QUERY, &token)) {
		r = open_error(pid, "token", GetLastError(), err);
		CloseHandle(h);
		return r;
	}
	CloseHandle(h);
	if (!GetTokenInformation(token, TokenUser, &info, sizeof(info), &len)) {
		r = error_set(err, -EIO, "cannot read the token of process %u: Windows error %lu", (unsigned)pid,
			      (unsigned long)GetLastError());
		CloseHandle(token);
		return r;
	}
	CloseHandle(token);
	PSID sid = info.user.User.Sid;
	if (!sid || !IsValidSid(sid) ||
	    win_sid_format(sid, GetLengthSid(sid), ret->sid, sizeof(ret->sid)) < 0)
		return error_set(err, -EBADMSG, "the token of process %u holds no SID", (unsigned)pid);
	_cleanup_free_ char *name = win_text_account(sid);
	snprintf(ret->name, sizeof(ret->name), "%s", name ? name : "");
	return 0;
}
