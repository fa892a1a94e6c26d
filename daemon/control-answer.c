/* Answers of the control socket, and the text checks they and requests
 * share: UTF-8, a mark's name, strings from /proc made safe for JSON. */
#include "control-answer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "macro.h"
#include "text.h"

static const char *const code_names[_CONTROL_CODE_MAX] = {
	[CONTROL_BAD_REQUEST] = "bad_request", [CONTROL_TOO_LARGE] = "too_large",
	[CONTROL_DENIED] = "denied",           [CONTROL_NOT_FOUND] = "not_found",
	[CONTROL_BUSY] = "busy",               [CONTROL_TIMEOUT] = "timeout",
	[CONTROL_UNAVAILABLE] = "unavailable", [CONTROL_INTERNAL] = "internal",
};

const char *control_code_name(enum control_code c)
{
	return c >= 0 && c < _CONTROL_CODE_MAX ? code_names[c] : NULL;
}

enum control_code control_code_from_errno(int error)
{
	switch (error < 0 ? -error : error) {
	case ENOENT:
	case ESRCH:
		return CONTROL_NOT_FOUND;
	case EACCES:
	case EPERM:
		return CONTROL_DENIED;
	case ETIME:
	case ETIMEDOUT:
		return CONTROL_TIMEOUT;
	case EINVAL:
		return CONTROL_BAD_REQUEST;
	case E2BIG:
		return CONTROL_TOO_LARGE;
	case EBUSY:
	case EIO:
	case EBADMSG:
	case EUCLEAN:
	case EPROTO:
	case ENODATA:
	case EROFS:
		return CONTROL_UNAVAILABLE;
	default:
		return CONTROL_INTERNAL;
	}
}

/* ------------------------------------------------------------ UTF-8 */

bool control_utf8_valid(const char *s, size_t len, size_t *ret_offset)
{
	return text_utf8_valid(s, len, ret_offset);
}

int control_mark_name_check(const char *s, size_t len, struct error *err)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	if (len == 0)
		return error_set(err, -EINVAL, "name: a mark needs a name");
	if (len > RW_MARK_NAME_MAX)
		return error_set(err, -EINVAL, "name: %zu bytes, longer than the %u a mark's name may have", len,
				 RW_MARK_NAME_MAX);
	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_next(p + i, len - i, &cp);
		if (n == 0)
			return error_set(err, -EINVAL, "name: not UTF-8 (byte %zu)", i);
		/* C0, DEL and C1: a name is shown in tables and logs, where these
		 * would move the cursor or end the line */
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			return error_set(err, -EINVAL, "name: control character U+%04X at byte %zu", (unsigned)cp, i);
		i += n;
	}
	return 0;
}

json_t *control_json_string(const char *s)
{
	return text_json_string(s);
}

/* ------------------------------------------------------------ answers */

json_t *control_answer_ok(json_t *id, json_t *result)
{
	if (!result)
		return NULL;
	json_t *a = json_object();
	if (!a || json_object_set_new(a, "ok", json_true()) < 0 || (id && json_object_set(a, "id", id) < 0) ||
	    json_object_set_new(a, "result", result) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *control_answer_error(json_t *id, enum control_code code, const char *message)
{
	json_t *a = json_object();
	if (!a || json_object_set_new(a, "ok", json_false()) < 0 || (id && json_object_set(a, "id", id) < 0) ||
	    json_object_set_new(a, "error", control_json_string(message)) < 0 ||
	    json_object_set_new(a, "code", json_string(control_code_name(code))) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

struct dump {
	char *buf;
	size_t len, cap, max;
	bool over;
};

static int dump_piece(const char *piece, size_t size, void *userdata)
{
	struct dump *d = userdata;
	if (size > d->max - d->len) {
		d->over = true;
		return -1;
	}
	if (d->len + size > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		while (cap < d->len + size)
			cap *= 2;
		if (cap > d->max)
			cap = d->max;
		char *p = realloc(d->buf, cap);
		if (!p)
			return -1;
		d->buf = p;
		d->cap = cap;
	}
	memcpy(d->buf + d->len, piece, size);
	d->len += size;
	return 0;
}

int control_answer_line(const json_t *answer, size_t max, char **ret, size_t *ret_len)
{
	/* one byte is kept for the newline */
	struct dump d = { .max = max > 0 ? max - 1 : 0 };

	/* six digits: rates and shares, not measurements that need more */
	if (json_dump_callback(answer, dump_piece, &d, JSON_COMPACT | JSON_REAL_PRECISION(6)) < 0) {
		free(d.buf);
		return d.over ? -E2BIG : -ENOMEM;
	}
	char *p = realloc(d.buf, d.len + 2);
	if (!p) {
		free(d.buf);
		return -ENOMEM;
	}
	p[d.len] = '\n';
	p[d.len + 1] = '\0';
	*ret = p;
	*ret_len = d.len + 1;
	return 0;
}
