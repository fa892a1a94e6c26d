/* The one error type (error.h): formatting a message into its fixed
 * buffer without leaving half a UTF-8 character at the cut. */
#include "error.h"

#include <stdio.h>
#include <string.h>

/* The length in bytes of the sequence a UTF-8 lead byte starts, or 0 for
 * a byte that cannot start one. */
static size_t sequence_length(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 0;
}

/* Ends s[0, len) (len < its size) at a UTF-8 character boundary: a
 * sequence the cut left incomplete is dropped whole. */
static void cut_utf8(char *s, size_t len)
{
	size_t start = len, tail = 0;

	/* Walk back over continuation bytes (10xxxxxx) to the byte that
	 * started the last sequence; a sequence has at most 4 bytes. */
	while (start > 0 && tail < 4 && ((unsigned char)s[start - 1] & 0xc0) == 0x80) {
		start--;
		tail++;
	}
	if (start == 0) {
		s[len] = '\0';
		return;
	}
	size_t want = sequence_length((unsigned char)s[start - 1]);
	if (want > 1 && tail + 1 < want)
		len = start - 1;
	s[len] = '\0';
}

/* Finishes a message vsnprintf wrote n bytes of (n as it returns). */
static void finish(char *message, int n)
{
	if (n < 0)
		message[0] = '\0';
	else if ((size_t)n >= ERROR_MESSAGE_MAX)
		cut_utf8(message, ERROR_MESSAGE_MAX - 1);
}

int error_setv(struct error *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return code;
	e->code = code;
	finish(e->message, vsnprintf(e->message, sizeof(e->message), fmt, ap));
	return code;
}

int error_set(struct error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(e, code, fmt, ap);
	va_end(ap);
	return code;
}

int error_prefix(struct error *e, const char *fmt, ...)
{
	char prefix[ERROR_MESSAGE_MAX], old[ERROR_MESSAGE_MAX];
	va_list ap;
	int n;

	if (!e)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (n < 0)
		return e->code;
	memcpy(old, e->message, sizeof(old));
	finish(e->message, snprintf(e->message, sizeof(e->message), "%s%s", prefix, old));
	return e->code;
}

void error_clear(struct error *e)
{
	if (!e)
		return;
	e->code = 0;
	e->message[0] = '\0';
}

const char *error_message_or_strerror(const struct error *e, int code)
{
	return error_has_message(e) ? e->message : strerror(code < 0 ? -code : code);
}
