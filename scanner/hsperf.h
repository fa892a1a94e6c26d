/* The JVM's performance counters file (hsperfdata), as jstat reads it:
 * /tmp/hsperfdata_USER/PID, which HotSpot maps shared and updates in
 * place while it runs.  Only the Java heap's spaces are taken from it:
 * each space's used and capacity (committed) bytes, the figures of
 * `jstat -gc`.  Pure: it is fed the file's bytes and never opens
 * anything, so the same code reads a live JVM's file, a captured one and
 * fuzz input.
 *
 * The format (HotSpot's perfMemory.hpp, major version 2, minor 0 since
 * JDK 1.4.2): a 32-byte prologue, then entries one after the other, each
 * a 20-byte header (its length, the offsets of its name and of its data
 * from its own start, the vector length, the type), its NUL-terminated
 * name and its data.  Every offset and length is checked against the
 * entry's and the file's bounds before it is used: a file that does not
 * check out is refused, never half read. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The prologue's size, and so the smallest file that may be one. */
#define HSPERF_PROLOGUE_SIZE 32u

/* The Java heap as the counters show it. */
struct hsperf_heap {
	/* the collector: "G1", "Parallel", "Serial", "Shenandoah", "ZGC", or
	 * "" when the file does not say in a way this parser knows */
	char gc[16];
	unsigned spaces;   /* heap spaces read (eden, s0, s1, old, ...) */
	uint64_t used;     /* sum of the spaces' used bytes (EU + S0U + S1U + OU) */
	uint64_t capacity; /* sum of their capacities (EC + S0C + S1C + OC): committed */
};

/* Reads the heap's spaces from the len bytes of a hsperfdata file.
 * Returns 0 with *ret, or, with a sentence in why:
 *   -EBADMSG  not a hsperfdata file this parser reads: wrong magic, byte
 *             order or version, a field or an entry out of bounds
 *   -EAGAIN   a file the JVM is still writing (not yet accessible), or
 *             a space whose used exceeds its capacity (read while the
 *             collector moved it): read again
 *   -ENODATA  a well-formed file with no heap space counters
 * *ret is untouched on failure. */
int hsperf_parse_heap(const uint8_t *buf, size_t len, struct hsperf_heap *ret, char *why, size_t why_size);
