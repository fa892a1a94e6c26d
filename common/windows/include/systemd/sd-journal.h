/* The journal is Linux's: on Windows nothing names JOURNAL_STREAM, so
 * log.c never calls this; it exists so that log.c compiles unchanged. */
#pragma once

#include <errno.h>

static inline int sd_journal_send(const char *format, ...)
{
	(void)format;
	return -ENOSYS;
}
