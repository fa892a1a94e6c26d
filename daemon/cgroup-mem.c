/* Memory cgroups, v1 and v2 (cgroup-mem.h). */
#include "cgroup-mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"
#include "util.h"

/* v1's "no limit" is PAGE_COUNTER_MAX pages; anything this large is none */
#define V1_NO_LIMIT_FROM (1ull << 62)

/* cgroup files are a few KiB at most; memory.stat of v2 about 1.5 KiB */
#define FILE_MAX (64 * 1024)

/* ------------------------------------------------------------ mounts */

/* Copies a mountinfo field, its \ooo escapes undone, into buf.  Returns
 * false when it does not fit. */
static bool unescape_field(const char *s, size_t n, char *buf, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= size)
			return false;
		buf[o++] = c;
	}
	buf[o] = 0;
	return true;
}

/* Whether the comma-separated list s[0, n) holds word. */
static bool list_has(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	while (n > 0) {
		const char *comma = memchr(s, ',', n);
		size_t item = comma ? (size_t)(comma - s) : n;
		if (item == w && memcmp(s, word, w) == 0)
			return true;
		if (!comma)
			break;
		n -= item + 1;
		s = comma + 1;
	}
	return false;
}

/* Whether the whitespace-separated list s holds word. */
static bool words_have(const char *s, const char *word)
{
	size_t w = strlen(word);
	while (s && *s) {
		while (*s == ' ' || *s == '\n' || *s == '\t')
			s++;
		size_t n = strcspn(s, " \n\t");
		if (n == w && memcmp(s, word, w) == 0)
			return true;
		s += n;
	}
	return false;
}

int cgroup_mem_mount_parse(const char *mountinfo, size_t len, const char *v2_controllers,
			   struct cgroup_mem_mount *ret)
{
	struct cgroup_mem_mount v1 = { 0 }, v2 = { 0 };
	const char *p = mountinfo, *end = mountinfo + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		/* id parent dev root point options [optional...] - type source super */
		const char *f[6];
		size_t fl[6], nf = 0;
		const char *q = p;
		while (nf < 6 && q < line_end) {
			const char *sp = memchr(q, ' ', (size_t)(line_end - q));
			f[nf] = q;
			fl[nf] = (size_t)((sp ? sp : line_end) - q);
			nf++;
			q = sp ? sp + 1 : line_end;
		}
		const char *dash = NULL;
		for (const char *s = q; s + 2 <= line_end; s++)
			if (s[0] == '-' && s[1] == ' ' && (s == q || s[-1] == ' ')) {
				dash = s;
				break;
			}
		if (nf < 6 || !dash) {
			if (line_end > p)
				return -EBADMSG;
			p = line_end + 1;
			continue;
		}
		const char *type = dash + 2;
		const char *type_end = memchr(type, ' ', (size_t)(line_end - type));
		if (!type_end)
			return -EBADMSG;
		size_t type_len = (size_t)(type_end - type);
		const char *src = type_end + 1, *src_end = memchr(src, ' ', (size_t)(line_end - src));
		const char *super = src_end ? src_end + 1 : line_end;
		struct cgroup_mem_mount *m = NULL;
		if (type_len == 6 && memcmp(type, "cgroup", 6) == 0 &&
		    list_has(super, (size_t)(line_end - super), "memory") && v1.version == CGROUP_MEM_NONE)
			m = &v1;
		else if (type_len == 7 && memcmp(type, "cgroup2", 7) == 0 && v2.version == CGROUP_MEM_NONE)
			m = &v2;
		if (m) {
			if (!unescape_field(f[3], fl[3], m->root, sizeof(m->root)) ||
			    !unescape_field(f[4], fl[4], m->mount_point, sizeof(m->mount_point)))
				return -EBADMSG;
			m->version = m == &v1 ? CGROUP_MEM_V1 : CGROUP_MEM_V2;
		}
		p = line_end + 1;
	}
	if (v1.version != CGROUP_MEM_NONE)
		*ret = v1;
	else if (v2.version != CGROUP_MEM_NONE && words_have(v2_controllers, "memory"))
		*ret = v2;
	else
		return -ENOENT;
	return 0;
}

int cgroup_mem_path_parse(const char *text, size_t len, const struct cgroup_mem_mount *m, char *buf, size_t size)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		const char *c1 = memchr(p, ':', (size_t)(line_end - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(line_end - c1 - 1)) : NULL;
		if (!c2)
			return line_end > p ? -EBADMSG : -ENODATA;
		bool mine = m->version == CGROUP_MEM_V1
				    ? list_has(c1 + 1, (size_t)(c2 - c1 - 1), "memory")
				    : c1 - p == 1 && *p == '0' && c2 == c1 + 1;
		if (mine) {
			const char *path = c2 + 1;
			size_t n = (size_t)(line_end - path), r = strlen(m->root);
			if (n == 0 || *path != '/')
				return -EBADMSG;
			/* below the mount's root, as the mount shows it */
			if (!streq(m->root, "/")) {
				if (n < r || memcmp(path, m->root, r) != 0 || (n > r && path[r] != '/'))
					return -ENODATA;
				path += r;
				n -= r;
			}
			if (n == 0) {
				path = "/";
				n = 1;
			}
			if (n + 1 > size)
				return -ENAMETOOLONG;
			memcpy(buf, path, n);
			buf[n] = 0;
			return 0;
		}
		p = line_end + 1;
	}
	return -ENODATA;
}

/* ------------------------------------------------------------ figures */

int cgroup_mem_limit_parse(const char *text, size_t len, uint64_t *ret)
{
	uint64_t v;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len == 3 && memcmp(text, "max", 3) == 0)
		return 0;
	if (parse_u64_n(text, len, 10, &v) < 0)
		return -EBADMSG;
	if (v >= V1_NO_LIMIT_FROM)
		return 0;
	*ret = v;
	return 1;
}

/* Calls fn for each "key value" line of text.  Returns 0, fn's error, or
 * -EBADMSG for a line that is not one. */
static int each_pair(const char *text, size_t len, int (*fn)(void *u, const char *key, size_t key_len, uint64_t v),
		     void *u)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		if (line_end > p) {
			const char *sp = memchr(p, ' ', (size_t)(line_end - p));
			uint64_t v;
			if (!sp || sp == p || parse_u64_n(sp + 1, (size_t)(line_end - sp - 1), 10, &v) < 0)
				return -EBADMSG;
			int r = fn(u, p, (size_t)(sp - p), v);
			if (r < 0)
				return r;
		}
		p = line_end + 1;
	}
	return 0;
}

static bool key_is(const char *key, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(key, want, n) == 0;
}

static int stat_v1(void *u, const char *key, size_t n, uint64_t v)
{
	struct cgroup_mem *m = u;
	if (key_is(key, n, "total_rss"))
		m->anon = v;
	else if (key_is(key, n, "total_cache"))
		m->file = v;
	else if (key_is(key, n, "total_shmem"))
		m->shmem = v;
	else if (key_is(key, n, "hierarchical_memory_limit") && v < V1_NO_LIMIT_FROM) {
		m->have_applies = true;
		m->applies = v;
	}
	return 0;
}

static int stat_v2(void *u, const char *key, size_t n, uint64_t v)
{
	struct cgroup_mem *m = u;
	if (key_is(key, n, "anon"))
		m->anon = v;
	else if (key_is(key, n, "file"))
		m->file = v;
	else if (key_is(key, n, "shmem"))
		m->shmem = v;
	else if (key_is(key, n, "kernel")) {
		m->have_kernel = true;
		m->kernel = v;
	} else if (key_is(key, n, "sock")) {
		m->have_sock = true;
		m->sock = v;
	}
	return 0;
}

int cgroup_mem_stat_parse(const char *text, size_t len, enum cgroup_mem_version v, struct cgroup_mem *ret)
{
	return each_pair(text, len, v == CGROUP_MEM_V1 ? stat_v1 : stat_v2, ret);
}

static int events(void *u, const char *key, size_t n, uint64_t v)
{
	struct cgroup_mem *m = u;
	if (key_is(key, n, "oom"))
		m->oom = v;
	else if (key_is(key, n, "oom_kill"))
		m->oom_kill = v;
	else if (key_is(key, n, "high"))
		m->events_high = v;
	else if (key_is(key, n, "max"))
		m->events_max = v;
	return 0;
}

int cgroup_mem_events_parse(const char *text, size_t len, enum cgroup_mem_version v, struct cgroup_mem *ret)
{
	(void)v; /* the keys the two share mean the same; the others are absent */
	int r = each_pair(text, len, events, ret);
	if (r == 0)
		ret->have_events = true;
	return r;
}

/* ------------------------------------------------------------ reading */

/* The file name of a group's file, relative to the mount. */
static int file_of(char *buf, size_t size, const char *path, const char *name)
{
	while (*path == '/')
		path++;
	int n = snprintf(buf, size, "%s%s%s", path, *path ? "/" : "", name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int read_file(int mount_fd, const char *path, const char *name, char **ret, size_t *ret_len)
{
	char file[CGROUP_MEM_PATH_MAX + 64];
	int r = file_of(file, sizeof(file), path, name);
	if (r < 0)
		return r;
	return read_full_fileat(mount_fd, file, FILE_MAX, ret, ret_len);
}

static int read_number(int mount_fd, const char *path, const char *name, uint64_t *ret)
{
	char *text = NULL;
	size_t len;
	int r = read_file(mount_fd, path, name, &text, &len);
	if (r < 0)
		return r;
	while (len > 0 && text[len - 1] == '\n')
		len--;
	r = parse_u64_n(text, len, 10, ret) < 0 ? -EBADMSG : 0;
	free(text);
	return r;
}

/* A limit file: 1 with *ret, 0 for none, -errno. */
static int read_limit(int mount_fd, const char *path, const char *name, uint64_t *ret)
{
	char *text = NULL;
	size_t len;
	int r = read_file(mount_fd, path, name, &text, &len);
	if (r < 0)
		return r;
	r = cgroup_mem_limit_parse(text, len, ret);
	free(text);
	return r;
}

static int read_parsed(int mount_fd, const char *path, const char *name, enum cgroup_mem_version v,
		       int (*parse)(const char *, size_t, enum cgroup_mem_version, struct cgroup_mem *),
		       struct cgroup_mem *ret)
{
	char *text = NULL;
	size_t len;
	int r = read_file(mount_fd, path, name, &text, &len);
	if (r < 0)
		return r;
	r = parse(text, len, v, ret);
	free(text);
	return r;
}

/* v2: the lowest memory.max and memory.high from the group up to the
 * mount's root, where the limit that applies is set. */
static int v2_applies(int mount_fd, const char *path, struct cgroup_mem *m)
{
	char up[CGROUP_MEM_PATH_MAX];
	snprintf(up, sizeof(up), "%s", path);
	for (;;) {
		char *slash = strrchr(up, '/');
		if (!slash || slash == up)
			break; /* the root has no memory.max */
		*slash = 0;
		uint64_t v;
		int r = read_limit(mount_fd, up, "memory.max", &v);
		if (r == -ENOENT)
			break;
		if (r < 0)
			return r;
		if (r == 1 && (!m->have_applies || v < m->applies)) {
			m->have_applies = true;
			m->applies = v;
		}
	}
	return 0;
}

int cgroup_mem_read(int mount_fd, const struct cgroup_mem_mount *mnt, const char *path, struct cgroup_mem *ret)
{
	struct cgroup_mem m = { .version = mnt->version };
	const bool v1 = mnt->version == CGROUP_MEM_V1;
	uint64_t v;
	int r;

	if ((r = read_number(mount_fd, path, v1 ? "memory.usage_in_bytes" : "memory.current", &m.usage)) < 0)
		return r;
	if ((r = read_limit(mount_fd, path, v1 ? "memory.limit_in_bytes" : "memory.max", &m.limit)) < 0)
		return r;
	m.have_limit = r == 1;
	if ((r = read_parsed(mount_fd, path, "memory.stat", mnt->version, cgroup_mem_stat_parse, &m)) < 0)
		return r;
	if ((r = read_parsed(mount_fd, path, v1 ? "memory.oom_control" : "memory.events", mnt->version,
			     cgroup_mem_events_parse, &m)) < 0)
		return r;
	if (v1) {
		/* kmem and memsw exist only where the kernel was built with
		 * them (and swap accounting on): absent, not an error */
		if (read_number(mount_fd, path, "memory.kmem.usage_in_bytes", &v) == 0) {
			m.have_kernel = true;
			m.kernel = v;
		}
		if (read_number(mount_fd, path, "memory.memsw.usage_in_bytes", &v) == 0 && v >= m.usage) {
			m.have_swap = true;
			m.swap = v - m.usage;
		}
	} else {
		if ((r = read_limit(mount_fd, path, "memory.high", &m.high)) < 0 && r != -ENOENT)
			return r;
		m.have_high = r == 1;
		if (read_number(mount_fd, path, "memory.swap.current", &v) == 0) {
			m.have_swap = true;
			m.swap = v;
		}
		if (m.have_limit) {
			m.have_applies = true;
			m.applies = m.limit;
		}
		if ((r = v2_applies(mount_fd, path, &m)) < 0)
			return r;
	}
	*ret = m;
	return 0;
}

int cgroup_mem_read_usage(int mount_fd, const struct cgroup_mem_mount *mnt, const char *path, uint64_t *ret)
{
	return read_number(mount_fd, path, mnt->version == CGROUP_MEM_V1 ? "memory.usage_in_bytes" : "memory.current",
			   ret);
}

int cgroup_mem_limit_holder(int mount_fd, const struct cgroup_mem_mount *mnt, const char *path, uint64_t applies,
			    char *buf, size_t size)
{
	const char *name = mnt->version == CGROUP_MEM_V1 ? "memory.limit_in_bytes" : "memory.max";
	char up[CGROUP_MEM_PATH_MAX];

	if (snprintf(up, sizeof(up), "%s", path) >= (int)sizeof(up))
		return -ENAMETOOLONG;
	for (;;) {
		uint64_t v;
		int r = read_limit(mount_fd, up, name, &v);
		if (r == 1 && v == applies) {
			if (snprintf(buf, size, "%s", up) >= (int)size)
				return -ENAMETOOLONG;
			return 0;
		}
		if (r < 0 && r != -ENOENT)
			return r;
		char *slash = strrchr(up, '/');
		if (!slash || (slash == up && up[1] == 0))
			return -ENOENT;
		if (slash == up)
			up[1] = 0; /* the mount's root */
		else
			*slash = 0;
	}
}

int cgroup_mem_process_path(int proc_dir_fd, const struct cgroup_mem_mount *mnt, char *buf, size_t size)
{
	char *text = NULL;
	size_t len;
	int r = read_full_fileat(proc_dir_fd, "cgroup", FILE_MAX, &text, &len);
	if (r < 0)
		return r;
	r = cgroup_mem_path_parse(text, len, mnt, buf, size);
	free(text);
	return r;
}

int cgroup_mem_open_mount(const char *mountinfo_path, struct cgroup_mem_mount *ret_mount, int *ret_fd)
{
	char *text = NULL, *controllers = NULL;
	size_t len, clen = 0;
	struct cgroup_mem_mount m;
	int r = read_full_fileat(AT_FDCWD, mountinfo_path ? mountinfo_path : "/proc/self/mountinfo", 1024 * 1024,
				 &text, &len);
	if (r < 0)
		return r;
	/* a v1 hierarchy with memory first; else v2, whose root says which
	 * controllers it has (where systemd mounts it) */
	r = cgroup_mem_mount_parse(text, len, NULL, &m);
	if (r == -ENOENT) {
		/* no v1 hierarchy with memory: a v2 mount, if it has memory */
		struct cgroup_mem_mount probe;
		static const char *const v2_roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
		for (size_t i = 0; i < ELEMENTSOF(v2_roots) && r == -ENOENT; i++) {
			char p[256];
			snprintf(p, sizeof(p), "%s/cgroup.controllers", v2_roots[i]);
			if (read_full_fileat(AT_FDCWD, p, FILE_MAX, &controllers, &clen) < 0)
				continue;
			r = cgroup_mem_mount_parse(text, len, controllers, &probe);
			free(controllers);
			controllers = NULL;
			if (r == 0)
				m = probe;
		}
	}
	free(text);
	if (r < 0)
		return r;
	int fd = open(m.mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_mount = m;
	*ret_fd = fd;
	return 0;
}
