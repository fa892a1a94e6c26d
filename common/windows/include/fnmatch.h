/* fnmatch(3) for Windows, where the C library has none
 * (common/windows/posix.c): '*', '?' and bracket expressions, no flags. */
#pragma once

#define FNM_NOMATCH 1
/* Accepted and not honoured: a '*' also matches the path separators (the
 * daemon's exe: selectors match Windows paths, whose separator is '\') */
#define FNM_PATHNAME (1 << 0)

int fnmatch(const char *pattern, const char *string, int flags);
