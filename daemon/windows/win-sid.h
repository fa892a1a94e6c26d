/* A Windows security identifier (SID) as text, "S-1-5-21-...-1001", the
 * form ConvertSidToStringSid gives and that Windows's tools show: the
 * owner of a process as the store keeps it when no account name is
 * found, and what access checks compare.  Pure: the SID's bytes in, its
 * text out, so it is built and tested on Linux too.
 *
 * A SID's bytes: a revision (1), the number of sub-authorities (at most
 * WIN_SID_SUB_AUTHORITIES_MAX), a 48-bit identifier authority in big
 * endian, then each sub-authority as 32 bits in little endian. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* SID_MAX_SUB_AUTHORITIES (winnt.h) */
#define WIN_SID_SUB_AUTHORITIES_MAX 15u
/* The bytes of the longest SID: 8 and 4 per sub-authority. */
#define WIN_SID_BYTES_MAX (8u + 4u * WIN_SID_SUB_AUTHORITIES_MAX)
/* The longest text, its NUL included: "S-1-", an authority as
 * "0x" and 12 hex digits, and 15 times "-4294967295". */
#define WIN_SID_TEXT_MAX (4u + 14u + 11u * WIN_SID_SUB_AUTHORITIES_MAX + 1u)

/* The text of the SID in sid[0, len) into buf (size bytes, at least
 * WIN_SID_TEXT_MAX always suffices).  An authority below 2^32 is in
 * decimal, a larger one in hex ("0x" and 12 digits), as Windows writes
 * them.  Returns the length of the text, or -EBADMSG when the bytes are
 * not a SID (a revision other than 1, more than 15 sub-authorities, fewer
 * bytes than it says), -ENOSPC when buf is too small. */
int win_sid_format(const void *sid, size_t len, char *buf, size_t size);
