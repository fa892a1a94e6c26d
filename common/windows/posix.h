/* What the shared code takes from POSIX and the Windows C runtime (mingw-w64)
 * lacks: given to every file of the Windows build (-include), so that the
 * shared files compile unchanged and no #ifdef is needed in them.  The
 * functions are in posix.c. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>

/* Handles opened by _open are not inherited unless asked (_O_NOINHERIT is
 * the default for CreateProcess without bInheritHandles), and Windows has
 * neither controlling terminals nor FIFOs that block an open. */
#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#define O_NOCTTY 0
#define O_NONBLOCK 0
#define O_DIRECTORY 0
#define O_NOFOLLOW 0

#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define AT_FDCWD (-100)

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#ifndef EREMOTEIO
#define EREMOTEIO 121
#endif
/* Linux's, which the store returns for a damaged file and a full quota;
 * above the numbers the runtime uses */
#ifndef EUCLEAN
#define EUCLEAN 160
#endif
#ifndef EDQUOT
#define EDQUOT 161
#endif

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* POSIX's account types, which the shared code names (an account on
 * Windows is a SID: no uid names one; pwd.h has the same) */
typedef unsigned int uid_t;
typedef unsigned int gid_t;

/* open(2) in binary mode (the C runtime's default is text: CR LF, and
 * Ctrl-Z as the end), sharing delete so that a file still open can be
 * renamed over its target, as write_file_atomic does; rename(2) replacing
 * the target, as POSIX's does. */
int posix_open(const char *path, int flags, ...);
int posix_rename(const char *from, const char *to);
#define open(...) posix_open(__VA_ARGS__)
#define rename(from, to) posix_rename(from, to)

/* mkdir(2) with POSIX's mode, which Windows has no bits for: the
 * directory takes its parent's access control list */
int posix_mkdir(const char *path, int mode);
#define mkdir(path, mode) posix_mkdir(path, mode)

int fcntl(int fd, int cmd, ...);
/* localtime_s and gmtime_s with POSIX's argument order and result */
struct tm *localtime_r(const time_t *t, struct tm *ret);
struct tm *gmtime_r(const time_t *t, struct tm *ret);
/* renameat2(2) with RENAME_NOREPLACE (the only flag): MoveFileEx without
 * MOVEFILE_REPLACE_EXISTING, which fails with EEXIST; both directories
 * must be AT_FDCWD */
#define RENAME_NOREPLACE (1u << 0)
int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned flags);
/* Windows files have no mode bits (their access is their ACL's): nothing
 * to do */
int fchmod(int fd, unsigned mode);
/* sysconf(3) of what the shared code asks: none is known (-1, EINVAL),
 * and each caller has its own default */
#define _SC_GETPW_R_SIZE_MAX 70
long sysconf(int name);
/* glibc's qsort_r (the context last), over the runtime's qsort_s */
void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg);
/* A stream whose bytes are *ret_buf (NUL-terminated, malloc'd, the
 * caller's) and *ret_size once it is closed with fclose: a temporary file
 * deleted on close (the runtime has no stream over memory), read back
 * whole then.  Unlike glibc's, the two are not updated by fflush, which
 * the shared code never relies on.  At most POSIX_MEMSTREAMS_MAX at
 * once (EMFILE past it). */
#define POSIX_MEMSTREAMS_MAX 32
FILE *open_memstream(char **ret_buf, size_t *ret_size);
int posix_fclose(FILE *f);
#define fclose(f) posix_fclose(f)
/* pread(2): ReadFile at an offset, which leaves the descriptor's own
 * offset where it was, as POSIX's does */
#include <sys/types.h>
ssize_t pread(int fd, void *buf, size_t count, off_t offset);
int openat(int dirfd, const char *path, int flags, ...);
int fsync(int fd);
/* POSIX 2008's, absent from the Windows C runtime */
char *strndup(const char *s, size_t n);
/* glibc's (POSIX 2024's): realloc of n * size, NULL with ENOMEM when the
 * product overflows */
void *reallocarray(void *p, size_t n, size_t size);
/* The errno of a Windows error code (GetLastError()), 0 for 0: EIO for
 * those the shared code has no word for */
int posix_errno_of(unsigned long error);
