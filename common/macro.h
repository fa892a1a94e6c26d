/* Small language helpers shared by every component: cleanup attributes,
 * ownership transfer, array sizes.  Everything here is header-only so the
 * scanner library, the daemon and the client can use it without linking
 * anything extra. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _pure_ __attribute__((pure))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

/* Returns the value of *p and leaves NULL (or -1 for fds) behind, so the
 * cleanup handler of the variable it came from does nothing. */
#define TAKE_PTR(p)                      \
	({                               \
		__typeof__(p) _p_ = (p); \
		(p) = NULL;              \
		_p_;                     \
	})
#define TAKE_FD(fd)                 \
	({                          \
		int _fd_ = (fd);    \
		(fd) = -1;          \
		_fd_;               \
	})

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Declares a cleanup helper for a type with a NULL-accepting destructor,
 * e.g. DEFINE_CLEANUP(struct census *, census_free). */
#define DEFINE_CLEANUP(type, func)                     \
	static inline void func##p(type *p)            \
	{                                              \
		if (*p)                                \
			func(*p);                      \
	}

/* qsort that accepts an empty or NULL array (qsort's own contract does not:
 * UBSan reports a NULL base even when there is nothing to sort). */
static inline void qsort_safe(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* errno as a negative value, never 0: for wrapping libc calls that
 * returned -1 but, against their contract, left errno unset. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
