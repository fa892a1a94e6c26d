/* Reading whole small files, relative to a directory fd (so /proc/PID is
 * opened once and tests can point readers at fixture directories). */
#pragma once

#include <stddef.h>

/* Reads the whole file name (relative to dirfd; AT_FDCWD for a path) into a
 * newly allocated, NUL-terminated buffer.  Returns 0 with *ret_buf owned by
 * the caller (and its length in *ret_size when not NULL), -EFBIG when the
 * file is longer than max bytes, or the -errno of open/read.  The outputs
 * are untouched on failure. */
int read_full_fileat(int dirfd, const char *name, size_t max, char **ret_buf, size_t *ret_size);

/* The same from an open fd, which is not closed. */
int read_full_fd(int fd, size_t max, char **ret_buf, size_t *ret_size);

/* Opens a file a user names to read it, "-" for standard input (a
 * duplicate, to be closed as any other).  A FIFO without a writer does not
 * block: it reads as empty.  Returns the fd (close-on-exec) or -errno. */
int open_input(const char *path);

/* Writes len bytes to fd, retrying short writes and EINTR.  Returns 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

/* Writes data to path atomically: a temporary file beside it, fsync,
 * rename.  Returns 0 or -errno. */
int write_file_atomic(const char *path, const void *data, size_t len);
