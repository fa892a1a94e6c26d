/* ramwatch-trace.h: name the phases of a program for the allocation tracer
 * (libramwatch-trace.so, preloaded by `ramwatch trace record`).
 *
 * The functions are declared weak: a program that includes this header
 * links and runs without the tracer, and then the calls do nothing.  Under
 * the tracer, every allocation between ramwatch_trace_scope_enter("decode")
 * and ramwatch_trace_scope_exit("decode") is in scope "root/decode" of the
 * trace; scopes nest ("root/decode/huffman") and are the program's, not a
 * thread's: a phase entered in one thread holds for every thread.
 *
 * See ramwatch-trace(3). */
#ifndef RAMWATCH_TRACE_H
#define RAMWATCH_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enters the scope name (no '/' in it) below the current one.  Returns 0,
 * -EINVAL for an empty name or one with '/', -E2BIG when scopes nest deeper
 * than 32 or the path passes 255 bytes, -ENOSPC past 4096 distinct scopes
 * (the allocations then stay in the enclosing scope). */
int ramwatch_trace_scope_enter(const char *name) __attribute__((weak));
/* Leaves the innermost scope, which must be name.  Returns 0, or -ENOENT
 * when the innermost scope is another one (nothing is left). */
int ramwatch_trace_scope_exit(const char *name) __attribute__((weak));

/* The calls to use: they do nothing when the tracer is not loaded. */
static inline int ramwatch_trace_enter(const char *name)
{
	return ramwatch_trace_scope_enter ? ramwatch_trace_scope_enter(name) : 0;
}

static inline int ramwatch_trace_exit(const char *name)
{
	return ramwatch_trace_scope_exit ? ramwatch_trace_scope_exit(name) : 0;
}

#ifdef __cplusplus
}
#endif

#endif
