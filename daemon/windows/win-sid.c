/* See win-sid.h. */
#include "win-sid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "bytes.h"

int win_sid_format(const void *sid, size_t len, char *buf, size_t size)
{
	const uint8_t *b = sid;
	uint64_t authority = 0;
	unsigned count;
	int n, at;

	if (len < 8 || b[0] != 1)
		return -EBADMSG;
	count = b[1];
	if (count > WIN_SID_SUB_AUTHORITIES_MAX || len < 8u + 4u * count)
		return -EBADMSG;
	for (unsigned i = 2; i < 8; i++)
		authority = authority << 8 | b[i];
	if (authority < (1ull << 32))
		n = snprintf(buf, size, "S-1-%" PRIu64, authority);
	else
		n = snprintf(buf, size, "S-1-0x%012" PRIX64, authority);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	at = n;
	for (unsigned i = 0; i < count; i++) {
		n = snprintf(buf + at, size - (size_t)at, "-%" PRIu32, bytes_u32(b, 8 + 4 * i));
		if (n < 0 || (size_t)n >= size - (size_t)at)
			return -ENOSPC;
		at += n;
	}
	return at;
}
