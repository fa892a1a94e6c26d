/* fnmatch(3) for Windows, where the C library has none
 * (common/windows/posix.c): '*', '?' and bracket expressions, no flags. */
#pragma once

#define FNM_NOMATCH 1

int fnmatch(const char *pattern, const char *string, int flags);
