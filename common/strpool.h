/* An interning string pool: every distinct string is stored once, in blocks
 * that never move, so the pointers it returns stay valid until the pool is
 * freed.  Used for region paths, where a library's four or five mappings, or
 * thousands of mappings of one data file, share a path. */
#pragma once

#include <stddef.h>

struct strpool;

struct strpool *strpool_new(void);
/* Frees the pool and every string in it; accepts NULL, returns NULL. */
struct strpool *strpool_free(struct strpool *pool);

/* Returns the pool's copy of the len bytes at s (NUL-terminated), adding it
 * if it is new, or NULL when out of memory. */
const char *strpool_intern(struct strpool *pool, const char *s, size_t len);

/* Bytes the pool holds (blocks and table), for cost accounting. */
size_t strpool_bytes(const struct strpool *pool);
