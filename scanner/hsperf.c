/* The JVM's hsperfdata file: the Java heap's spaces (hsperf.h).  Pure:
 * bytes in, the heap's used and capacity out.  The file comes from a
 * process we do not trust (any user's JVM, or something that wrote a file
 * where a JVM's would be), so every number in it is checked before it is
 * used as an offset or a length, and nothing is read outside the bytes
 * given. */
#include "hsperf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* perfMemory.hpp: the magic is written so that the file starts with these
 * bytes whatever the JVM's byte order (0xcafec0c0 read big-endian). */
static const uint8_t magic[4] = { 0xca, 0xfe, 0xc0, 0xc0 };

enum {
	BYTE_ORDER_BIG = 0,
	BYTE_ORDER_LITTLE = 1,
	MAJOR_VERSION = 2,
	MINOR_VERSION = 0,
	ENTRY_HEADER = 20, /* PerfDataEntry without its body */
	ENTRY_ALIGN = 8,   /* perfData.cpp aligns every entry to a jdouble */
	/* generations and spaces of a heap: HotSpot has at most 3 generations
	 * (young, old, and JDK 7's permanent one) of at most 3 spaces */
	GENERATIONS_MAX = 8,
	SPACES_MAX = 8,
};

/* A counter's value may not be larger than this: no heap is 2^56 bytes,
 * and sums of a few of them cannot wrap. */
#define VALUE_MAX (1ull << 56)

struct reader {
	const uint8_t *b;
	size_t len;
	bool big;
};

static uint32_t u32_at(const struct reader *rd, size_t off)
{
	const uint8_t *p = rd->b + off;
	if (rd->big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t u64_at(const struct reader *rd, size_t off)
{
	uint64_t hi = u32_at(rd, off + (rd->big ? 0 : 4)), lo = u32_at(rd, off + (rd->big ? 4 : 0));
	return hi << 32 | lo;
}

/* The bytes of one element of a data type, or 0 for a type HotSpot does
 * not write (perfMemory.hpp lists them). */
static size_t type_size(uint8_t t)
{
	switch (t) {
	case 'B':
	case 'Z':
		return 1;
	case 'C':
	case 'S':
		return 2;
	case 'I':
	case 'F':
		return 4;
	case 'J':
	case 'D':
		return 8;
	default:
		return 0;
	}
}

/* One entry, checked: its name and where its data lies. */
struct entry {
	const char *name;
	size_t data, data_len; /* offset in the file, bytes */
	uint8_t type;
	uint32_t vector;
};

/* What the walk over the entries collects. */
struct found {
	uint64_t used[GENERATIONS_MAX][SPACES_MAX], capacity[GENERATIONS_MAX][SPACES_MAX];
	bool has_used[GENERATIONS_MAX][SPACES_MAX], has_capacity[GENERATIONS_MAX][SPACES_MAX];
	bool perm[GENERATIONS_MAX]; /* JDK 7's permanent generation: class metadata, not heap */
	char policy[32], collector[32];
};

static int fail(char *why, size_t size, int r, const char *what)
{
	snprintf(why, size, "%s", what);
	return r;
}

/* "sun.gc.generation.N.space.M.FIELD": N and M single digits below the
 * bounds; returns the field's name, or NULL. */
static const char *space_counter(const char *name, unsigned *gen, unsigned *space)
{
	static const char prefix[] = "sun.gc.generation.";
	size_t n = sizeof(prefix) - 1;
	if (strncmp(name, prefix, n) != 0 || name[n] < '0' || name[n] > '9' || name[n + 1] != '.')
		return NULL;
	*gen = (unsigned)(name[n] - '0');
	name += n + 2;
	if (strncmp(name, "space.", 6) != 0 || name[6] < '0' || name[6] > '9' || name[7] != '.')
		return NULL;
	*space = (unsigned)(name[6] - '0');
	if (*gen >= GENERATIONS_MAX || *space >= SPACES_MAX)
		return NULL;
	return name + 8;
}

/* "sun.gc.generation.N.name": the generation N, or -1. */
static int generation_name(const char *name)
{
	static const char prefix[] = "sun.gc.generation.";
	size_t n = sizeof(prefix) - 1;
	if (strncmp(name, prefix, n) != 0 || name[n] < '0' || name[n] > '9' || strcmp(name + n + 1, ".name") != 0)
		return -1;
	int gen = name[n] - '0';
	return gen < GENERATIONS_MAX ? gen : -1;
}

/* A string entry's text (a byte vector, NUL-terminated inside it). */
static bool string_value(const struct reader *rd, const struct entry *e, char *dst, size_t size)
{
	if (e->type != 'B' || e->vector == 0)
		return false;
	const char *s = (const char *)rd->b + e->data;
	size_t n = strnlen(s, e->data_len);
	if (n == e->data_len)
		return false;
	snprintf(dst, size, "%.*s", (int)n, s);
	return true;
}

static int take(const struct reader *rd, const struct entry *e, struct found *f, char *why, size_t why_size)
{
	unsigned gen, space;
	const char *field = space_counter(e->name, &gen, &space);
	int g;

	if (field && (strcmp(field, "used") == 0 || strcmp(field, "capacity") == 0)) {
		if (e->type != 'J' || e->vector != 0)
			return fail(why, why_size, -EBADMSG, "a heap space counter that is not a long");
		uint64_t v = u64_at(rd, e->data);
		if (v > VALUE_MAX)
			return fail(why, why_size, -EBADMSG, "a heap space counter out of range");
		if (field[0] == 'u') {
			f->used[gen][space] = v;
			f->has_used[gen][space] = true;
		} else {
			f->capacity[gen][space] = v;
			f->has_capacity[gen][space] = true;
		}
	} else if ((g = generation_name(e->name)) >= 0) {
		char s[16];
		if (string_value(rd, e, s, sizeof(s)) && strcmp(s, "perm") == 0)
			f->perm[g] = true;
	} else if (strcmp(e->name, "sun.gc.policy.name") == 0) {
		(void)string_value(rd, e, f->policy, sizeof(f->policy));
	} else if (!f->collector[0] && strncmp(e->name, "sun.gc.collector.", 17) == 0 &&
		   strcmp(e->name + strlen(e->name) - 5, ".name") == 0) {
		(void)string_value(rd, e, f->collector, sizeof(f->collector));
	}
	return 0;
}

/* Checks the entry at off (within the used part of the file, [0, end))
 * and fills *e.  Returns its length, or -EBADMSG. */
static int entry_at(const struct reader *rd, size_t off, size_t end, struct entry *e, char *why, size_t why_size)
{
	if (end - off < ENTRY_HEADER)
		return fail(why, why_size, -EBADMSG, "an entry header past the end of the file");
	uint32_t length = u32_at(rd, off), name = u32_at(rd, off + 4), vector = u32_at(rd, off + 8);
	uint32_t data = u32_at(rd, off + 16);
	uint8_t type = rd->b[off + 12];
	if (length < ENTRY_HEADER || length % ENTRY_ALIGN || length > end - off)
		return fail(why, why_size, -EBADMSG, "an entry length out of bounds");
	if (name < ENTRY_HEADER || name >= length)
		return fail(why, why_size, -EBADMSG, "an entry name out of bounds");
	const char *s = (const char *)rd->b + off + name;
	size_t name_len = strnlen(s, length - name);
	if (name_len == length - name || name_len == 0)
		return fail(why, why_size, -EBADMSG, "an entry name not terminated inside its entry");
	size_t elem = type_size(type);
	if (elem == 0)
		return fail(why, why_size, -EBADMSG, "an entry of a type HotSpot does not write");
	if (vector > length)
		return fail(why, why_size, -EBADMSG, "an entry vector longer than its entry");
	size_t data_len = elem * (vector ? vector : 1);
	if (data < name + name_len + 1 || data > length || data_len > length - data)
		return fail(why, why_size, -EBADMSG, "entry data out of bounds");
	*e = (struct entry){ .name = s, .data = off + data, .data_len = data_len, .type = type, .vector = vector };
	return (int)length;
}

/* The collector's name for people, from the policy (G1, Parallel and
 * Serial publish one) or the first collector's (ZGC and Shenandoah). */
static void gc_name(const struct found *f, char *dst, size_t size)
{
	static const struct {
		const char *prefix, *gc;
	} names[] = {
		{ "GarbageFirst", "G1" }, { "ParScav:", "Parallel" },	  { "Copy:", "Serial" },
		{ "G1 ", "G1" },	  { "Shenandoah", "Shenandoah" }, { "Z ", "ZGC" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(f->policy, names[i].prefix, strlen(names[i].prefix)) == 0 ||
		    (!f->policy[0] && strncmp(f->collector, names[i].prefix, strlen(names[i].prefix)) == 0)) {
			snprintf(dst, size, "%s", names[i].gc);
			return;
		}
	dst[0] = '\0';
}

int hsperf_parse_heap(const uint8_t *buf, size_t len, struct hsperf_heap *ret, char *why, size_t why_size)
{
	struct reader rd = { .b = buf, .len = len };
	struct found f;

	if (len < HSPERF_PROLOGUE_SIZE)
		return fail(why, why_size, -EBADMSG, "shorter than its prologue");
	if (memcmp(buf, magic, sizeof(magic)) != 0)
		return fail(why, why_size, -EBADMSG, "not a hsperfdata file (wrong magic)");
	if (buf[4] != BYTE_ORDER_BIG && buf[4] != BYTE_ORDER_LITTLE)
		return fail(why, why_size, -EBADMSG, "an unknown byte order");
	rd.big = buf[4] == BYTE_ORDER_BIG;
	if (buf[5] != MAJOR_VERSION || buf[6] != MINOR_VERSION) {
		snprintf(why, why_size, "version %u.%u (this version reads 2.0)", buf[5], buf[6]);
		return -EBADMSG;
	}
	if (buf[7] > 1)
		return fail(why, why_size, -EBADMSG, "an accessible flag that is neither 0 nor 1");
	if (buf[7] == 0)
		return fail(why, why_size, -EAGAIN, "the JVM has not finished writing it");
	uint32_t used = u32_at(&rd, 8), entry_offset = u32_at(&rd, 24), entries = u32_at(&rd, 28);
	if (used < HSPERF_PROLOGUE_SIZE || used > len)
		return fail(why, why_size, -EBADMSG, "its used size past the end of the file");
	if (entry_offset < HSPERF_PROLOGUE_SIZE || entry_offset > used)
		return fail(why, why_size, -EBADMSG, "its first entry out of bounds");
	if (entries > (used - entry_offset) / ENTRY_HEADER)
		return fail(why, why_size, -EBADMSG, "more entries than the file holds");

	memset(&f, 0, sizeof(f));
	size_t off = entry_offset;
	for (uint32_t i = 0; i < entries; i++) {
		struct entry e;
		int n = entry_at(&rd, off, used, &e, why, why_size);
		if (n < 0)
			return n;
		int r = take(&rd, &e, &f, why, why_size);
		if (r < 0)
			return r;
		off += (size_t)n;
	}

	struct hsperf_heap h = { .spaces = 0 };
	for (unsigned g = 0; g < GENERATIONS_MAX; g++) {
		if (f.perm[g])
			continue;
		for (unsigned s = 0; s < SPACES_MAX; s++) {
			if (!f.has_used[g][s] || !f.has_capacity[g][s])
				continue;
			if (f.used[g][s] > f.capacity[g][s]) {
				snprintf(why, why_size, "generation %u space %u: used past its capacity (read while it moved)",
					 g, s);
				return -EAGAIN;
			}
			h.used += f.used[g][s];
			h.capacity += f.capacity[g][s];
			h.spaces++;
		}
	}
	if (h.spaces == 0)
		return fail(why, why_size, -ENODATA, "no heap space counters in it");
	gc_name(&f, h.gc, sizeof(h.gc));
	*ret = h;
	return 0;
}
