/* Selectors: which processes ramwatchd follows (Watch=) and which it leaves
 * alone (Ignore=).
 *
 *   all            every user-space process
 *   pid:N          the process with that pid (whichever instance holds it)
 *   name:GLOB      the command name (comm, 15 characters) or the basename
 *                  of the executable, so long names match too
 *   cmdline:GLOB   the arguments joined by spaces
 *   exe:PATH       the executable's path (a glob when it holds * ? or [)
 *   user:NAME      the real user, by name or number (resolved when the
 *                  configuration is loaded: an unknown user is an error)
 *   cgroup:PREFIX  the cgroup v2 path ("/system.slice/postgresql.service"),
 *                  whole components: "/system.slice" matches
 *                  "/system.slice/x.service" but not "/system.slicex"
 *
 * Matching is pure: the caller reads the facts a selector needs (see
 * selector_list_needs) and hands them in, so discovery reads only what the
 * configuration asks about. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum selector_kind {
	SELECTOR_ALL,
	SELECTOR_PID,
	SELECTOR_NAME,
	SELECTOR_CMDLINE,
	SELECTOR_EXE,
	SELECTOR_USER,
	SELECTOR_CGROUP,
	_SELECTOR_KIND_MAX
};

struct selector {
	enum selector_kind kind;
	char *arg;    /* the text after "kind:" as written (NULL for all) */
	int64_t num;  /* pid or uid */
};

struct selector_list {
	struct selector *v;
	size_t n;
};

/* What a process is, as far as selectors care.  Fields a selector list does
 * not need may be left NULL / -1. */
struct selector_facts {
	int pid;
	const char *comm;
	const char *exe;     /* NULL: unknown (kernel thread, or not readable) */
	const char *cmdline;
	int64_t uid;
	const char *cgroup;  /* the "0::" line of /proc/PID/cgroup, without the prefix */
};

/* The facts beyond pid, comm and uid (which /proc/PID/status gives) that
 * matching needs. */
enum {
	SELECTOR_NEEDS_EXE = 1 << 0,
	SELECTOR_NEEDS_CMDLINE = 1 << 1,
	SELECTOR_NEEDS_CGROUP = 1 << 2,
};

/* Parses one selector ("name:postgres*").  Returns 0 with *ret (its arg
 * owned by ret, selector_done), or -EINVAL / -ERANGE / -ENOENT (unknown
 * user) with the reason in err. */
int selector_parse(const char *s, struct selector *ret, struct error *err);
void selector_done(struct selector *s);

/* Formats a selector back as it would be written ("kind:arg", or "all").
 * Returns the length that would have been written (snprintf-style). */
size_t selector_format(const struct selector *s, char *buf, size_t size);

/* Appends s, taking its contents (s->arg is left NULL).  Returns 0, or
 * -E2BIG when l already holds RW_SELECTORS_MAX selectors, or -ENOMEM; on
 * failure s still owns its contents. */
int selector_list_add(struct selector_list *l, struct selector *s);
/* Frees the selectors and leaves l empty, ready for reuse. */
void selector_list_clear(struct selector_list *l);
/* A deep copy.  Returns 0 with *ret (the caller's, selector_list_clear) or
 * -ENOMEM with *ret untouched. */
int selector_list_copy(const struct selector_list *from, struct selector_list *ret);
/* Whether both hold the same selectors in the same order (user: compares
 * the name as written and the uid it resolved to). */
bool selector_list_equal(const struct selector_list *a, const struct selector_list *b);
/* The SELECTOR_NEEDS_* flags for matching against l. */
unsigned selector_list_needs(const struct selector_list *l);

/* Whether f matches s.  A fact s needs that is NULL (or a uid of -1) does
 * not match; "all" matches everything, kernel threads included: leaving
 * them out is discovery's business. */
bool selector_match(const struct selector *s, const struct selector_facts *f);
/* Whether any selector of l matches.  An empty list matches nothing. */
bool selector_list_match(const struct selector_list *l, const struct selector_facts *f);
