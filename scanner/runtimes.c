/* See runtimes.h.  The names are those the runtimes ship under on Linux
 * distributions and in their Windows installers; each table row says what
 * a name tells. */
#include "runtimes.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "units.h"
#include "util.h"

/* A file name as the process maps it, without its directory or the " (deleted)"
 * Linux adds once the file is replaced, cut to fit buf. */
static const char *file_name(const char *path, char *buf, size_t size)
{
	const char *b = path;
	for (const char *s = path; *s; s++)
		if (*s == '/' || *s == '\\')
			b = s + 1;
	size_t len = strlen(b);
	if (len >= 10 && memcmp(b + len - 10, " (deleted)", 10) == 0)
		len -= 10;
	if (len >= size)
		len = size - 1;
	memcpy(buf, b, len);
	buf[len] = '\0';
	return buf;
}

static bool starts(const char *name, const char *prefix)
{
	return strncasecmp(name, prefix, strlen(prefix)) == 0;
}

static bool same(const char *name, const char *other)
{
	return strcasecmp(name, other) == 0;
}

/* Where part is in name, without regard to case, or NULL (strcasestr is
 * GNU's, not Windows's). */
static const char *find(const char *name, const char *part)
{
	size_t len = strlen(part);
	for (; *name; name++)
		if (strncasecmp(name, part, len) == 0)
			return name;
	return NULL;
}

/* CPython 3's minor version in a name: "python3.11", "libpython3.9.so.1.0"
 * (after "python3."), "python311.dll" (after "python3" on Windows), or -1
 * ("libpython3.so", "python3.dll": the stable ABI's, of no version). */
static int python_minor(const char *name)
{
	const char *v = find(name, "python3");
	if (!v)
		return -1;
	v += 7;
	if (*v == '.')
		v++;
	int minor = 0, digits = 0;
	for (; *v >= '0' && *v <= '9' && digits < 3; v++, digits++)
		minor = minor * 10 + (*v - '0');
	return digits ? minor : -1;
}

static void note_python(struct runtimes *rt, const char *name)
{
	rt->python = true;
	if (rt->python_minor < 0)
		rt->python_minor = python_minor(name);
}

void runtimes_init(struct runtimes *rt)
{
	*rt = (struct runtimes){ .python_minor = -1, .allocator = RUNTIMES_MALLOC_GLIBC };
}

void runtimes_note_file(struct runtimes *rt, const char *path)
{
	char name[256];

	if (!path)
		return;
	if (strncmp(path, "/dev/nvidia", 11) == 0)
		rt->nvidia = true;
	file_name(path, name, sizeof(name));
	if (same(name, "libjvm.so") || same(name, "jvm.dll"))
		rt->jvm = true;
	else if (same(name, "libcoreclr.so") || same(name, "coreclr.dll") || same(name, "clr.dll"))
		rt->clr = true;
	else if (starts(name, "libnode.so") || starts(name, "libv8"))
		rt->v8 = true;
	else if (starts(name, "libpython2") || starts(name, "libpython3") || starts(name, "python2") ||
		 starts(name, "python3"))
		note_python(rt, name);
	else if (find(name, "openblas"))
		rt->openblas = true;
	else if (starts(name, "libjemalloc.so"))
		rt->allocator = RUNTIMES_MALLOC_JEMALLOC;
	else if (starts(name, "libmimalloc"))
		rt->allocator = RUNTIMES_MALLOC_MIMALLOC;
	else if (starts(name, "libtcmalloc"))
		rt->allocator = RUNTIMES_MALLOC_TCMALLOC;
}

void runtimes_note_program(struct runtimes *rt, const char *path)
{
	/* the programs that embed V8 and run JavaScript on its heap */
	static const char *const v8_programs[] = { "node",     "nodejs", "deno", "chrome", "chromium",
						   "electron", "msedge", "code", "d8" };
	char name[256];

	if (!path)
		return;
	file_name(path, name, sizeof(name));
	size_t len = strlen(name);
	if (len > 4 && same(name + len - 4, ".exe"))
		name[len - 4] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(v8_programs); i++)
		if (same(name, v8_programs[i]))
			rt->v8 = true;
	if (starts(name, "python"))
		note_python(rt, name);
}

void runtimes_note_cmdline(struct runtimes *rt, const char *cmdline)
{
	if (rt->jvm)
		rt->jvm_max_heap = runtimes_jvm_max_heap(cmdline);
}

/* A size as HotSpot parses one (Arguments::parse_memory_size): decimal
 * digits, or hexadecimal ones after "0x", then at most one unit letter.
 * Returns true with the bytes in *ret. */
static bool jvm_size(const char *s, size_t len, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0, mult = 1;
	size_t i = 0, digits = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < len; i++, digits++) {
		int dv = digit_value(s[i], base);
		if (dv < 0)
			break;
		unsigned d = (unsigned)dv;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (digits == 0)
		return false;
	if (i + 1 == len) {
		switch (s[i]) {
		case 'k': case 'K': mult = KiB; break;
		case 'm': case 'M': mult = MiB; break;
		case 'g': case 'G': mult = GiB; break;
		case 't': case 'T': mult = TiB; break;
		default: return false;
		}
	} else if (i != len)
		return false;
	if (v > UINT64_MAX / mult)
		return false;
	*ret = v * mult;
	return true;
}

uint64_t runtimes_jvm_max_heap(const char *cmdline)
{
	static const char *const options[] = { "-Xmx", "-XX:MaxHeapSize=" };
	uint64_t found = 0;

	for (const char *s = cmdline; s && *s;) {
		size_t len = strcspn(s, " \t");
		for (size_t k = 0; k < ELEMENTSOF(options); k++) {
			size_t n = strlen(options[k]);
			uint64_t v;
			if (len > n && memcmp(s, options[k], n) == 0 && jvm_size(s + n, len - n, &v))
				found = v;
		}
		s += len;
		s += strspn(s, " \t");
	}
	return found;
}
