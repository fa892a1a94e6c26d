/* The owner of a Windows process: the user of its primary token, as a SID
 * (win-sid.h) and, when the system can name it, as DOMAIN\account.  Access
 * checks compare SIDs; the store keeps the name where there is one, the
 * SID otherwise.  Windows only. */
#pragma once

#include <stdint.h>

#include "error.h"
#include "win-sid.h"

/* DOMAIN\account, its NUL included, at most: win_text_account reads each
 * part into 257 UTF-16 units, at most 3 bytes each in UTF-8 (a pair of
 * surrogates, 4 for two); a longer name is cut. */
#define WIN_OWNER_NAME_MAX (2u * 3u * 257u)

struct win_owner {
	char sid[WIN_SID_TEXT_MAX];     /* "S-1-5-21-...-1001" */
	char name[WIN_OWNER_NAME_MAX];  /* "DOMAIN\account", "" when LookupAccountSid knows none */
};

/* The owner of process pid, opened with PROCESS_QUERY_LIMITED_INFORMATION
 * (which a user has over its own processes, and an administrator over
 * every one but the protected).  Returns 0 with *ret filled, or, with err:
 *   -ESRCH    no such process
 *   -EACCES   its process or its token cannot be opened
 *   -EBADMSG  the token gave no SID
 *   -EIO      another failure (the Windows error in the message) */
int win_owner_read(uint32_t pid, struct win_owner *ret, struct error *err);
