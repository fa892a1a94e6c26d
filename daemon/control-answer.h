/* Answers of the control socket (doc/protocol.md): their codes, their
 * lines, and the text checks answers and requests share.  Pure. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The codes of failed answers. */
enum control_code {
	CONTROL_BAD_REQUEST,
	CONTROL_TOO_LARGE,
	CONTROL_DENIED,
	CONTROL_NOT_FOUND,
	CONTROL_BUSY,
	CONTROL_TIMEOUT,
	CONTROL_UNAVAILABLE,
	CONTROL_INTERNAL,
	_CONTROL_CODE_MAX
};

/* "bad_request", "too_large", ...; NULL out of range. */
const char *control_code_name(enum control_code c);

/* The code for a negative errno of the store, a scan or the worker:
 * -ENOENT/-ESRCH not_found, -EACCES/-EPERM denied, -ETIME timeout, -EINVAL
 * bad_request, -E2BIG too_large, -EBUSY, -EIO, -EBADMSG, -EUCLEAN, -EPROTO,
 * -ENODATA unavailable; anything else internal. */
enum control_code control_code_from_errno(int error);

/* Whether s[0, len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF).  When not, *ret_offset (may be
 * NULL) is the offset of the first bad byte. */
bool control_utf8_valid(const char *s, size_t len, size_t *ret_offset);

/* Checks a mark's name: 1 to RW_MARK_NAME_MAX bytes of UTF-8 without
 * control characters (C0, DEL, C1).  Returns 0 or -EINVAL with the reason
 * in err. */
int control_mark_name_check(const char *s, size_t len, struct error *err);

/* A JSON string of s, which may come from /proc and need not be UTF-8:
 * bytes that are not are replaced by U+FFFD.  NULL gives JSON null.
 * Returns a new reference, or NULL when out of memory. */
json_t *control_json_string(const char *s);

/* {"ok": true, "id": ID, "result": RESULT}; id (borrowed) is left out when
 * NULL.  Takes result over.  Returns NULL when out of memory. */
json_t *control_answer_ok(json_t *id, json_t *result);
/* {"ok": false, "id": ID, "error": MESSAGE, "code": CODE}.  Returns NULL
 * when out of memory. */
json_t *control_answer_error(json_t *id, enum control_code code, const char *message);

/* One answer as a line: compact JSON and "\n", newly allocated in *ret
 * (free(); NUL-terminated after the newline), its length (newline
 * included) in *ret_len.  Returns 0, -E2BIG when the line would
 * be longer than max bytes (stopping there: a huge answer costs no more
 * than max), or -ENOMEM. */
int control_answer_line(const json_t *answer, size_t max, char **ret, size_t *ret_len);
