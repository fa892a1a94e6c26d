/* Moving a damaged database aside: the file and its -wal and -shm get the
 * suffix ".corrupt-YYYYmmddTHHMMSSZ" (UTC, the time it was found), so the
 * set stays a database SQLite can open, and the daemon's path is free for
 * a new one.  ramwatchd never deletes what it moved aside. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The name path gets when found damaged at time_ms (unix ms); n > 0 adds
 * ".n" for the n-th file found in the same second.  Pure.  Returns 0 with
 * the name in buf, or -ENAMETOOLONG. */
int store_aside_name(const char *path, int64_t time_ms, unsigned n, char *buf, size_t size);

/* Renames path to its aside name (never over an existing file), then its
 * -wal and -shm beside it (those that exist).  Returns 0 with the new name
 * of path in ret_moved_to, or a negative errno (nothing was moved when the
 * main file could not be). */
int store_aside_move(const char *path, int64_t time_ms, char *ret_moved_to, size_t size);
