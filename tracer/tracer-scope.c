/* The program's scopes: the C API of ramwatch-trace.h, the scope variable
 * (--scope-env VAR) and marks (ramwatch mark, through FILE.mark).
 *
 * Scopes are the program's, not a thread's: one stack under a spinlock
 * (scopes change rarely; allocations only read the current id).  Each
 * distinct path gets an id once, defined by its first scope.enter; the
 * paths live in a table that only grows, so the writer reads a path by id
 * without a lock.
 *
 * The scope variable and marks name one phase at a time under root, as
 * ramwatch mark does for the daemon: a new value leaves the old phase and
 * enters the new one (an empty value: back to root).  The variable is
 * read at traced allocations, where getenv costs little beside the event;
 * the mark file by the writer thread every few milliseconds. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

#define SCOPES_MAX 4096u
#define DEPTH_MAX 32u
#define PATH_MAX_BYTES 256u

/* [0] is "root", set by tracer_scope_init: an initialised table would
 * put its megabyte in the library's file */
static char paths[SCOPES_MAX + 1][PATH_MAX_BYTES];
static _Atomic uint32_t defined = 1;
static uint32_t stack[DEPTH_MAX + 1];
static unsigned depth;
static _Atomic uint32_t current;
static atomic_flag lock = ATOMIC_FLAG_INIT;

/* the phase the scope variable or a mark entered, 0 when none */
static uint32_t phase;
static const char *env_seen;

void tracer_scope_init(void)
{
	memcpy(paths[0], "root", sizeof("root"));
}

void tracer_scope_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

void tracer_scope_unlock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

uint32_t tracer_scope_current(void)
{
	return atomic_load_explicit(&current, memory_order_relaxed);
}

const char *tracer_scope_path(uint32_t id)
{
	return id < atomic_load(&defined) ? paths[id] : "root";
}

static void emit_scope(enum tracer_kind kind, uint32_t id)
{
	struct tracer_record r = { .kind = (uint8_t)kind, .scope = id };
	tracer_ring_emit(&r);
}

/* The id of parent/name, defined when new.  Returns 0 on success. */
static int scope_id(uint32_t parent, const char *name, size_t len, uint32_t *ret)
{
	char path[PATH_MAX_BYTES];
	size_t plen = strlen(paths[parent]);
	uint32_t n = atomic_load(&defined);

	if (plen + 1 + len >= PATH_MAX_BYTES)
		return -E2BIG;
	memcpy(path, paths[parent], plen);
	path[plen] = '/';
	memcpy(path + plen + 1, name, len);
	path[plen + 1 + len] = 0;
	for (uint32_t i = 1; i < n; i++)
		if (strcmp(paths[i], path) == 0) {
			*ret = i;
			return 0;
		}
	if (n > SCOPES_MAX)
		return -ENOSPC;
	memcpy(paths[n], path, plen + len + 2);
	atomic_store(&defined, n + 1);
	*ret = n;
	return 0;
}

static int enter_locked(const char *name, size_t len)
{
	uint32_t id;
	int r;

	if (len == 0 || memchr(name, '/', len))
		return -EINVAL;
	if (depth >= DEPTH_MAX)
		return -E2BIG;
	if ((r = scope_id(tracer_scope_current(), name, len, &id)) < 0)
		return r;
	stack[depth++] = tracer_scope_current();
	/* the enter first: a thread that reads the new scope then keys its
	 * event after the enter's boundary (tracer-ring.c) */
	emit_scope(TRACER_SCOPE_ENTER, id);
	atomic_store(&current, id);
	return 0;
}

static void exit_locked(void)
{
	uint32_t id = tracer_scope_current();
	emit_scope(TRACER_SCOPE_EXIT, id);
	atomic_store(&current, stack[--depth]);
}

static const char *last_name(uint32_t id)
{
	const char *slash = strrchr(paths[id], '/');
	return slash ? slash + 1 : paths[id];
}

TRACER_EXPORT int ramwatch_trace_scope_enter(const char *name);
TRACER_EXPORT int ramwatch_trace_scope_exit(const char *name);

int ramwatch_trace_scope_enter(const char *name)
{
	int r;

	if (!name)
		return -EINVAL;
	tracer_guard();
	tracer_scope_lock();
	r = enter_locked(name, strlen(name));
	tracer_scope_unlock();
	tracer_unguard();
	return r;
}

int ramwatch_trace_scope_exit(const char *name)
{
	int r = -ENOENT;

	if (!name)
		return -EINVAL;
	tracer_guard();
	tracer_scope_lock();
	if (depth > 0 && strcmp(last_name(tracer_scope_current()), name) == 0) {
		exit_locked();
		r = 0;
	}
	tracer_scope_unlock();
	tracer_unguard();
	return r;
}

/* Leaves the phase and every scope inside it, then enters root/name. */
static void set_phase(const char *name, size_t len)
{
	tracer_scope_lock();
	if (phase) {
		while (depth > 0 && tracer_scope_current() != phase)
			exit_locked();
		if (depth > 0)
			exit_locked();
		phase = 0;
	}
	if (len > 0 && depth == 0 && enter_locked(name, len) == 0)
		phase = tracer_scope_current();
	tracer_scope_unlock();
}

/* Out of line: its phase change's path names are a large frame that every
 * traced event would set up, with no scope variable asked for too. */
static __attribute__((noinline, cold)) void follow_env(void)
{
	const char *v;

	v = getenv(tracer_config.scope_env);
	if (v == env_seen)
		return;
	env_seen = v;
	if (phase && v && strcmp(last_name(phase), v) == 0)
		return;
	set_phase(v ? v : "", v ? strlen(v) : 0);
}

void tracer_scope_follow_env(void)
{
	if (tracer_config.scope_env[0])
		follow_env();
}

/* FILE.mark holds the name of the current mark; its change time says when
 * to read it again. */
void tracer_scope_follow_mark(void)
{
	static char path[sizeof(tracer_config.file) + 8];
	static struct timespec seen;
	static uint64_t next_check;
	char name[PATH_MAX_BYTES];
	struct stat st;
	uint64_t now = tracer_now_ns();
	ssize_t n;
	int fd;

	if (now < next_check || !tracer_config.file[0])
		return;
	next_check = now + 5000000u;
	if (!path[0]) {
		strcpy(path, tracer_config.file);
		strcat(path, ".mark");
	}
	if (stat(path, &st) < 0 ||
	    (st.st_ctim.tv_sec == seen.tv_sec && st.st_ctim.tv_nsec == seen.tv_nsec))
		return;
	seen = st.st_ctim;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n < 0)
		return;
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '/'))
		n--;
	name[n] = 0;
	if (strchr(name, '/'))
		return;
	set_phase(name, (size_t)n);
}

void tracer_scope_close_all(void)
{
	tracer_scope_lock();
	while (depth > 0)
		exit_locked();
	phase = 0;
	tracer_scope_unlock();
}

void tracer_scope_reopen(void)
{
	for (unsigned i = 1; i <= depth; i++)
		emit_scope(TRACER_SCOPE_ENTER, i < depth ? stack[i] : tracer_scope_current());
}
