/* Selectors: parsing "kind:argument", formatting it back, lists of them and
 * matching a process's facts against them.
 *
 * Matching runs at every discovery pass for every new process, against at
 * most RW_SELECTORS_MAX selectors per list; it does no I/O (users are
 * resolved to ids when the configuration is loaded), so its cost is a few
 * fnmatch calls. */
#include "selector.h"

#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "limits.h"
#include "macro.h"
#include "util.h"

static const char *const kind_names[_SELECTOR_KIND_MAX] = {
	[SELECTOR_ALL] = "all",	      [SELECTOR_PID] = "pid",	[SELECTOR_NAME] = "name",
	[SELECTOR_CMDLINE] = "cmdline", [SELECTOR_EXE] = "exe",	[SELECTOR_USER] = "user",
	[SELECTOR_CGROUP] = "cgroup",
};

#define KINDS_HELP "all, pid:N, name:GLOB, cmdline:GLOB, exe:PATH, user:NAME or cgroup:PREFIX"

/* The largest buffer getpwnam_r gets: a passwd entry is a line of
 * /etc/passwd (or an NSS answer), so this is far beyond a real one. */
#define PASSWD_BUFFER_MAX (1024u * 1024u)

/* Resolves a user name to its uid.  Returns 0, -ENOENT when there is no such
 * user, or the -errno of the lookup (NSS can fail with EIO and others). */
static int lookup_user(const char *name, int64_t *ret_uid)
{
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t size = hint > 0 ? (size_t)hint : 1024;

	for (;;) {
		_cleanup_free_ char *buf = malloc(size);
		struct passwd pw, *result = NULL;
		if (!buf)
			return -ENOMEM;
		int r = getpwnam_r(name, &pw, buf, size, &result);
		if (r == 0) {
			if (!result)
				return -ENOENT;
			*ret_uid = pw.pw_uid;
			return 0;
		}
		/* getpwnam_r(3): ERANGE asks for a larger buffer; the
		 * "not found" errors some NSS modules return count as absent */
		if (r == ENOENT || r == ESRCH || r == EBADF || r == EPERM)
			return -ENOENT;
		if (r != ERANGE || size >= PASSWD_BUFFER_MAX)
			return -r;
		size *= 2;
	}
}

static int parse_user(const char *arg, int64_t *ret_uid, struct error *err)
{
	uint64_t id;
	int r = parse_u64(arg, 10, &id);
	if (r != -EINVAL) {
		/* (uid_t)-1 means "no user" to the kernel (setreuid(2)) */
		if (r == -ERANGE || id >= (uint64_t)(uid_t)-1)
			return error_set(err, -ERANGE, "user id %s is out of range", arg);
		*ret_uid = (int64_t)id;
		return 0;
	}
	r = lookup_user(arg, ret_uid);
	if (r == -ENOENT)
		return error_set(err, r, "unknown user '%s'", arg);
	if (r < 0)
		return error_set(err, r, "cannot look up user '%s': %s", arg, strerror(-r));
	return r;
}

int selector_parse(const char *s, struct selector *ret, struct error *err)
{
	struct selector sel = { .kind = _SELECTOR_KIND_MAX };
	const char *colon = strchr(s, ':');
	size_t kind_len = colon ? (size_t)(colon - s) : strlen(s);
	int r;

	for (enum selector_kind k = 0; k < _SELECTOR_KIND_MAX; k++)
		if (strlen(kind_names[k]) == kind_len && strncmp(s, kind_names[k], kind_len) == 0)
			sel.kind = k;
	if (sel.kind == _SELECTOR_KIND_MAX)
		return error_set(err, -EINVAL, "unknown selector '%s' (use " KINDS_HELP ")", s);
	if (sel.kind == SELECTOR_ALL) {
		if (colon)
			return error_set(err, -EINVAL, "selector 'all' takes no argument");
		*ret = sel;
		return 0;
	}
	if (!colon || colon[1] == '\0')
		return error_set(err, -EINVAL, "selector '%s' needs an argument after '%s:'", s, kind_names[sel.kind]);

	const char *arg = colon + 1;
	switch (sel.kind) {
	case SELECTOR_PID: {
		int pid;
		r = parse_pid(arg, &pid);
		if (r < 0)
			return error_set(err, r, "'%s' is not a process id (1 to 2147483647)", arg);
		sel.num = pid;
		break;
	}
	case SELECTOR_EXE:
		/* a path without its directory is what name: is for; saying so
		 * beats a selector that silently never matches */
		if (arg[0] != '/')
			return error_set(err, -EINVAL, "exe:%s is not an absolute path (name:%s matches a command name)",
					 arg, arg);
		break;
	case SELECTOR_CGROUP:
		if (arg[0] != '/')
			return error_set(err, -EINVAL, "cgroup:%s does not start with '/' (as in /system.slice)", arg);
		break;
	case SELECTOR_USER:
		r = parse_user(arg, &sel.num, err);
		if (r < 0)
			return r;
		break;
	default:
		break;
	}

	sel.arg = strdup(arg);
	if (!sel.arg)
		return error_set(err, -ENOMEM, "out of memory");
	*ret = sel;
	return 0;
}

void selector_done(struct selector *s)
{
	if (!s)
		return;
	free(s->arg);
	s->arg = NULL;
}

size_t selector_format(const struct selector *s, char *buf, size_t size)
{
	int n = s->arg ? snprintf(buf, size, "%s:%s", kind_names[s->kind], s->arg)
		       : snprintf(buf, size, "%s", kind_names[s->kind]);
	return n < 0 ? 0 : (size_t)n;
}

int selector_list_add(struct selector_list *l, struct selector *s)
{
	if (l->n >= RW_SELECTORS_MAX)
		return -E2BIG;
	/* one realloc per selector: lists are short and built once per load */
	struct selector *v = reallocarray(l->v, l->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = *s;
	s->arg = NULL;
	return 0;
}

void selector_list_clear(struct selector_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		selector_done(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int selector_list_copy(const struct selector_list *from, struct selector_list *ret)
{
	struct selector_list l = {};

	if (from->n == 0) {
		*ret = l;
		return 0;
	}
	l.v = calloc(from->n, sizeof(*l.v));
	if (!l.v)
		return -ENOMEM;
	for (; l.n < from->n; l.n++) {
		l.v[l.n] = from->v[l.n];
		if (from->v[l.n].arg && !(l.v[l.n].arg = strdup(from->v[l.n].arg))) {
			selector_list_clear(&l);
			return -ENOMEM;
		}
	}
	*ret = l;
	return 0;
}

bool selector_list_equal(const struct selector_list *a, const struct selector_list *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind != b->v[i].kind || a->v[i].num != b->v[i].num ||
		    !streq_ptr(a->v[i].arg, b->v[i].arg))
			return false;
	return true;
}

unsigned selector_list_needs(const struct selector_list *l)
{
	unsigned needs = 0;
	for (size_t i = 0; i < l->n; i++)
		switch (l->v[i].kind) {
		case SELECTOR_NAME:
		case SELECTOR_EXE:
			needs |= SELECTOR_NEEDS_EXE;
			break;
		case SELECTOR_CMDLINE:
			needs |= SELECTOR_NEEDS_CMDLINE;
			break;
		case SELECTOR_CGROUP:
			needs |= SELECTOR_NEEDS_CGROUP;
			break;
		default:
			break;
		}
	return needs;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* proc(5): once the executable is unlinked (a package upgrade replaces it),
 * the /proc/PID/exe link reads "PATH (deleted)".  The process still runs
 * the program at PATH, so it should match as before. */
static bool exe_match(const char *pattern, const char *exe, bool basename_only)
{
	static const char deleted[] = " (deleted)";
	char path[4096];
	const char *p = exe;

	if (endswith(exe, deleted) && strlen(exe) < sizeof(path)) {
		size_t n = strlen(exe) - (sizeof(deleted) - 1);
		memcpy(path, exe, n);
		path[n] = '\0';
		p = path;
	}
	if (basename_only) {
		const char *slash = strrchr(p, '/');
		return fnmatch(pattern, slash ? slash + 1 : p, 0) == 0;
	}
	if (has_glob(pattern))
		return fnmatch(pattern, p, FNM_PATHNAME) == 0;
	return streq(pattern, p);
}

/* Whether cgroup lies at or under prefix, comparing whole path components:
 * "/a" covers "/a" and "/a/b", not "/ab".  Trailing slashes of the prefix
 * do not count, so "/" covers everything. */
static bool cgroup_match(const char *prefix, const char *cgroup)
{
	size_t n = strlen(prefix);
	while (n > 0 && prefix[n - 1] == '/')
		n--;
	if (cgroup[0] != '/' || strncmp(cgroup, prefix, n) != 0)
		return false;
	return cgroup[n] == '\0' || cgroup[n] == '/';
}

bool selector_match(const struct selector *s, const struct selector_facts *f)
{
	switch (s->kind) {
	case SELECTOR_ALL:
		return true;
	case SELECTOR_PID:
		return f->pid == s->num;
	case SELECTOR_NAME:
		/* comm is cut at 15 bytes (TASK_COMM_LEN), so "name:postgres_exporter"
		 * only matches through the executable's name */
		return (f->comm && fnmatch(s->arg, f->comm, 0) == 0) || (f->exe && exe_match(s->arg, f->exe, true));
	case SELECTOR_CMDLINE:
		return f->cmdline && fnmatch(s->arg, f->cmdline, 0) == 0;
	case SELECTOR_EXE:
		return f->exe && exe_match(s->arg, f->exe, false);
	case SELECTOR_USER:
		return f->uid >= 0 && f->uid == s->num;
	case SELECTOR_CGROUP:
		return f->cgroup && cgroup_match(s->arg, f->cgroup);
	default:
		return false;
	}
}

bool selector_list_match(const struct selector_list *l, const struct selector_facts *f)
{
	for (size_t i = 0; i < l->n; i++)
		if (selector_match(&l->v[i], f))
			return true;
	return false;
}
