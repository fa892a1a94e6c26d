/* The POSIX calls posix.h declares, over the Windows API and its C runtime.
 * Each does only what the shared code asks of it; anything else fails
 * with ENOSYS rather than pretending. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <windows.h>

#include "fnmatch.h"

#undef open
#undef rename
#undef fclose

static int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_NAME: return ENOENT;
	case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: return EACCES;
	case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS: return EEXIST;
	case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return ENOMEM;
	case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
	default: return EIO;
	}
}

int posix_errno_of(unsigned long error)
{
	return error ? errno_of((DWORD)error) : 0;
}

int posix_open(const char *path, int flags, ...)
{
	DWORD access, disposition;
	switch (flags & (O_RDONLY | O_WRONLY | O_RDWR)) {
	case O_WRONLY: access = GENERIC_WRITE; break;
	case O_RDWR: access = GENERIC_READ | GENERIC_WRITE; break;
	default: access = GENERIC_READ; break;
	}
	if (flags & O_CREAT)
		disposition = (flags & O_EXCL) ? CREATE_NEW : (flags & O_TRUNC) ? CREATE_ALWAYS : OPEN_ALWAYS;
	else
		disposition = (flags & O_TRUNC) ? TRUNCATE_EXISTING : OPEN_EXISTING;
	HANDLE h = CreateFileA(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, disposition,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError());
		return -1;
	}
	int fd = _open_osfhandle((intptr_t)h, (flags & (O_RDONLY | O_WRONLY | O_RDWR | O_APPEND)) | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
	}
	return fd;
}

int posix_rename(const char *from, const char *to)
{
	if (!MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING)) {
		errno = errno_of(GetLastError());
		return -1;
	}
	return 0;
}

int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned flags)
{
	if (from_dir != AT_FDCWD || to_dir != AT_FDCWD || flags & ~RENAME_NOREPLACE) {
		errno = EINVAL;
		return -1;
	}
	if (!MoveFileExA(from, to, flags & RENAME_NOREPLACE ? 0 : MOVEFILE_REPLACE_EXISTING)) {
		errno = errno_of(GetLastError());
		return -1;
	}
	return 0;
}

int fchmod(int fd, unsigned mode)
{
	(void)fd;
	(void)mode;
	return 0;
}

long sysconf(int name)
{
	(void)name;
	errno = EINVAL;
	return -1;
}

int posix_mkdir(const char *path, int mode)
{
	(void)mode;
	if (!CreateDirectoryA(path, NULL)) {
		errno = errno_of(GetLastError());
		return -1;
	}
	return 0;
}

int fcntl(int fd, int cmd, ...)
{
	switch (cmd) {
	case F_DUPFD_CLOEXEC:
		return _dup(fd);
	case F_GETFL: /* there is no O_NONBLOCK to clear */
		return 0;
	case F_SETFL:
		return 0;
	default:
		errno = ENOSYS;
		return -1;
	}
}

int openat(int dirfd, const char *path, int flags, ...)
{
	if (dirfd != AT_FDCWD && !(path[0] && (path[1] == ':' || path[0] == '\\' || path[0] == '/'))) {
		errno = ENOSYS;
		return -1;
	}
	return posix_open(path, flags);
}

struct tm *localtime_r(const time_t *t, struct tm *ret)
{
	return localtime_s(ret, t) == 0 ? ret : NULL;
}

struct tm *gmtime_r(const time_t *t, struct tm *ret)
{
	return gmtime_s(ret, t) == 0 ? ret : NULL;
}

struct qsort_context {
	int (*cmp)(const void *, const void *, void *);
	void *arg;
};

static int qsort_trampoline(void *context, const void *a, const void *b)
{
	const struct qsort_context *q = context;
	return q->cmp(a, b, q->arg);
}

void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg)
{
	struct qsort_context q = { cmp, arg };
	qsort_s(base, n, size, qsort_trampoline, &q);
}

/* The streams open_memstream made that are not closed yet, and where
 * each one's bytes go; the daemon's threads may make them at once. */
static struct memstream {
	FILE *f;
	char **ret_buf;
	size_t *ret_size;
} memstreams[POSIX_MEMSTREAMS_MAX];
static SRWLOCK memstreams_lock = SRWLOCK_INIT;

FILE *open_memstream(char **ret_buf, size_t *ret_size)
{
	char dir[MAX_PATH + 1], path[MAX_PATH + 1];
	struct memstream *slot = NULL;

	if (!GetTempPathA(sizeof(dir), dir) || !GetTempFileNameA(dir, "rw", 0, path)) {
		errno = errno_of(GetLastError());
		return NULL;
	}
	HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			       FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError());
		DeleteFileA(path);
		return NULL;
	}
	int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
		return NULL;
	}
	FILE *f = _fdopen(fd, "w+b");
	if (!f) {
		_close(fd);
		return NULL;
	}
	AcquireSRWLockExclusive(&memstreams_lock);
	for (size_t i = 0; i < POSIX_MEMSTREAMS_MAX && !slot; i++)
		if (!memstreams[i].f)
			slot = &memstreams[i];
	if (slot)
		*slot = (struct memstream){ f, ret_buf, ret_size };
	ReleaseSRWLockExclusive(&memstreams_lock);
	if (!slot) {
		fclose(f);
		errno = EMFILE;
		return NULL;
	}
	return f;
}

/* The bytes written to a memstream's file, read back whole.  Returns 0
 * with them in *ret_buf and *ret_size, or -1 with errno. */
static int memstream_take(FILE *f, char **ret_buf, size_t *ret_size)
{
	if (fflush(f) != 0 || fseeko64(f, 0, SEEK_END) != 0)
		return -1;
	int64_t size = ftello64(f);
	if (size < 0 || (uint64_t)size >= SIZE_MAX || fseeko64(f, 0, SEEK_SET) != 0)
		return -1;
	char *buf = malloc((size_t)size + 1);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		errno = EIO;
		return -1;
	}
	buf[size] = '\0';
	*ret_buf = buf;
	*ret_size = (size_t)size;
	return 0;
}

int posix_fclose(FILE *f)
{
	struct memstream m = { 0 };

	AcquireSRWLockExclusive(&memstreams_lock);
	for (size_t i = 0; f && i < POSIX_MEMSTREAMS_MAX; i++)
		if (memstreams[i].f == f) {
			m = memstreams[i];
			memstreams[i] = (struct memstream){ 0 };
			break;
		}
	ReleaseSRWLockExclusive(&memstreams_lock);
	if (!m.f)
		return fclose(f);
	int r = memstream_take(f, m.ret_buf, m.ret_size);
	int e = errno;
	if (fclose(f) != 0 && r == 0)
		return EOF;
	errno = e;
	return r < 0 ? EOF : 0;
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED at = { .Offset = (DWORD)((uint64_t)offset & 0xffffffffu),
			  .OffsetHigh = (DWORD)((uint64_t)offset >> 32) };
	DWORD got = 0;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (count > 0x7fffffffu)
		count = 0x7fffffffu;
	if (!ReadFile(h, buf, (DWORD)count, &got, &at)) {
		DWORD e = GetLastError();
		if (e == ERROR_HANDLE_EOF)
			return 0;
		errno = errno_of(e);
		return -1;
	}
	return (ssize_t)got;
}

int fsync(int fd)
{
	return _commit(fd);
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *copy = malloc(len + 1);

	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	(void)addr;
	(void)offset;
	if (fd != -1 || !(flags & MAP_ANONYMOUS) || prot != (PROT_READ | PROT_WRITE)) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	void *p = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	if (!p) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return p;
}

int munmap(void *addr, size_t len)
{
	(void)len;
	if (!VirtualFree(addr, 0, MEM_RELEASE)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int madvise(void *addr, size_t len, int advice)
{
	(void)addr;
	(void)len;
	(void)advice;
	return 0; /* advice only: large pages need a privilege, and are not asked for */
}

/* One bracket expression at *p (after the '['): whether c is in it; *p
 * is left after the ']'.  An unterminated bracket matches a '[' itself. */
static bool bracket_match(const char **p, char c, bool *ret_valid)
{
	const char *s = *p;
	bool negate = false, found = false;
	if (*s == '!' || *s == '^') {
		negate = true;
		s++;
	}
	const char *first = s;
	while (*s && (*s != ']' || s == first)) {
		if (s[1] == '-' && s[2] && s[2] != ']') {
			if ((unsigned char)c >= (unsigned char)s[0] && (unsigned char)c <= (unsigned char)s[2])
				found = true;
			s += 3;
		} else {
			if (*s == c)
				found = true;
			s++;
		}
	}
	*ret_valid = *s == ']';
	if (*ret_valid)
		*p = s + 1;
	return found != negate;
}

int fnmatch(const char *pattern, const char *string, int flags)
{
	const char *p = pattern, *s = string, *star = NULL, *star_s = NULL;
	(void)flags;
	while (*s) {
		bool valid = true;
		const char *q = p;
		if (*p == '*') {
			star = ++p;
			star_s = s;
			continue;
		}
		if (*p == '?' || (*p == '\\' && p[1] && p[1] == *s) || (*p != '[' && *p != '\\' && *p == *s)) {
			p += *p == '\\' ? 2 : 1;
			s++;
			continue;
		}
		if (*p == '[') {
			q = p + 1;
			if (bracket_match(&q, *s, &valid) && valid) {
				p = q;
				s++;
				continue;
			}
			if (!valid && *s == '[') {
				p++;
				s++;
				continue;
			}
		}
		if (!star)
			return FNM_NOMATCH;
		p = star;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p ? FNM_NOMATCH : 0;
}

void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}
