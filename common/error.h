/* One type for a failure with its explanation, used by every layer: a
 * negative errno (what the program acts on) and a message (what a person
 * reads).  The message is a buffer inside the struct, so an error is kept
 * on the caller's stack or in the object that fails (the store keeps its
 * last one); nothing is allocated, and reporting an out-of-memory error
 * cannot itself fail.
 *
 * A function that fails this way takes a `struct error *` that may be
 * NULL (the caller wants the code only) and returns the code, so one line
 * both explains and fails:
 *     return error_set(e, -EINVAL, "line %u: unknown key %s", n, key);
 * The caller owns the struct; what it holds means something only when
 * the call failed. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>

#include "limits.h"
#include "macro.h"

#define ERROR_MESSAGE_MAX RW_ERROR_MESSAGE_MAX

struct error {
	int code; /* a negative errno; 0: no error */
	char message[ERROR_MESSAGE_MAX]; /* NUL-terminated UTF-8, "" when none */
};

/* Sets e (may be NULL) to code and the formatted message, cut at a UTF-8
 * character boundary when longer than ERROR_MESSAGE_MAX - 1 bytes.
 * Returns code. */
int error_set(struct error *e, int code, const char *fmt, ...) _printf_(3, 4);
int error_setv(struct error *e, int code, const char *fmt, va_list ap) _printf_(3, 0);

/* Puts the formatted text before e's message (the context a lower layer
 * did not know: "file:line: "), cut as error_set does.  Accepts NULL.
 * Returns e's code (0 for NULL). */
int error_prefix(struct error *e, const char *fmt, ...) _printf_(2, 3);

/* Empties e (may be NULL): code 0, message "". */
void error_clear(struct error *e);

/* Whether e holds a message (false for NULL). */
static inline bool error_has_message(const struct error *e)
{
	return e && e->message[0] != '\0';
}

/* e's message when it has one, else strerror(-code): what to show a
 * person when a callee failed without saying why. */
const char *error_message_or_strerror(const struct error *e, int code);
