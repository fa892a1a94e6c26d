/* The writer thread: takes the rings' segments in the order their events
 * happened, numbers them, and writes them as memtrace events (format
 * version 3) into a buffer of its own pages, written with write(2) a
 * megabyte at a time: as the compact file of trace/trace-binary.h
 * (--format binary), where a segment's bytes, encoded by the thread that
 * made the events, are copied as they are behind a head that numbers
 * them, so that at --min-bytes 0 the writer keeps up with the program's
 * threads; or as JSON Lines, each record decoded and formatted by hand.
 * Either way the rare events (start, allocators, scopes, objects, stacks,
 * the small-block counts, stop) are JSON lines.
 *
 * Only one thread formats at a time: the writer thread while it runs, then
 * the thread that stops the session (after joining it), or a fork's child
 * before it starts its own writer. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "trace-binary.h"
#include "tracer.h"

#define OUT_BYTES (1u << 20)
#define OUT_LINE_MAX 4096u /* a line is formatted whole into the room left */
#define IDLE_WAIT_NS 2000000u

static char *out;
static size_t out_len;
static int out_fd = -1;
static pthread_t writer;
static bool writer_running;
static _Atomic int writer_stop;
/* --format json: each stream's deltas, to decode its records */
static struct trace_bin_stream streams[TRACE_BIN_STREAMS];
static uint64_t seq; /* the last number given */

int tracer_writer_open(const char *path, bool exclusive)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);

	if (!out && !(out = tracer_pages(OUT_BYTES)))
		return -ENOMEM;
	out_len = 0;
	tracer_writer_reset_streams();
	seq = 0;
	out_fd = open(path, flags, 0644);
	if (out_fd < 0)
		return -errno;
	if (tracer_config.binary)
		tracer_out_mem(TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
	return 0;
}

void tracer_out_flush(void)
{
	size_t done = 0;

	while (done < out_len && out_fd >= 0) {
		ssize_t n = write(out_fd, out + done, out_len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* a full disk: the rest is lost, the trace ends short */
		done += (size_t)n;
	}
	out_len = 0;
}

void tracer_writer_close(void)
{
	tracer_out_flush();
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
}

void tracer_writer_close_child(void)
{
	out_len = 0;
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
	writer_running = false;
}

static void room(size_t n)
{
	if (out_len + n > OUT_BYTES)
		tracer_out_flush();
}

void tracer_out_mem(const char *s, size_t n)
{
	room(n);
	memcpy(out + out_len, s, n);
	out_len += n;
}

void tracer_out_str(const char *s)
{
	tracer_out_mem(s, strlen(s));
}

void tracer_out_u64(uint64_t v)
{
	room(20);
	out_len += trace_bin_u64(out + out_len, v);
}

void tracer_out_hex(uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	room(n + 2);
	out[out_len++] = '0';
	out[out_len++] = 'x';
	while (n)
		out[out_len++] = tmp[--n];
}

/* A JSON string with quotes: '"', '\' and control bytes escaped; other
 * bytes as they are (a path is bytes, and the parser takes any UTF-8). */
void tracer_out_json_string(const char *s)
{
	static const char digits[] = "0123456789abcdef";

	room(2);
	out[out_len++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		room(6);
		if (c == '"' || c == '\\') {
			out[out_len++] = '\\';
			out[out_len++] = (char)c;
		} else if (c < 0x20 || c == 0x7f || c >= 0x80) {
			/* bytes past ASCII as \u00XX: a path need not be UTF-8, the trace must be */
			memcpy(out + out_len, "\\u00", 4);
			out[out_len + 4] = digits[c >> 4];
			out[out_len + 5] = digits[c & 15];
			out_len += 6;
		} else {
			out[out_len++] = (char)c;
		}
	}
	room(1);
	out[out_len++] = '"';
}

/* a literal without strlen */
#define OUT(lit) tracer_out_mem(lit, sizeof(lit) - 1)
#define field(name, v)                  \
	do {                            \
		OUT(name);              \
		tracer_out_u64(v);      \
	} while (0)

uint64_t tracer_writer_next_seq(void)
{
	return ++seq;
}

void tracer_writer_skip(uint64_t n)
{
	seq += n;
}

void tracer_writer_reset_streams(void)
{
	memset(streams, 0, sizeof(streams));
}

void tracer_writer_scope(enum tracer_kind kind, uint32_t id, uint64_t gap)
{
	uint64_t n;

	tracer_writer_skip(gap);
	n = tracer_writer_next_seq();
	room(OUT_LINE_MAX);
	field("{\"seq\":", n);
	if (kind == TRACER_SCOPE_ENTER) {
		field(",\"kind\":\"scope.enter\",\"scope_id\":", id);
		OUT(",\"scope\":");
		tracer_out_json_string(tracer_scope_path(id));
	} else {
		field(",\"kind\":\"scope.exit\",\"scope_id\":", id);
	}
	OUT("}\n");
}

/* --format json: the segment's records one by one.  They were encoded by
 * this library, so a record that does not decode is a fault of its own:
 * the rest of the segment is left out rather than misread. */
static void segment_json(uint32_t stream, const unsigned char *bytes, size_t len)
{
	struct trace_bin_record b;
	const char *why;
	int k;

	for (size_t at = 0, i = 1; at < len; at += (size_t)k, i++) {
		if ((k = trace_bin_decode(&streams[stream], bytes + at, len - at, &b, &why)) <= 0)
			return;
		if (i % 4096 == 0)
			tracer_ring_progress();
		tracer_writer_skip(b.gap);
		b.seq = tracer_writer_next_seq();
		room(TRACE_BIN_JSON_MAX);
		out_len += trace_bin_json(&b, out + out_len);
	}
}

void tracer_writer_segment(uint32_t stream, const unsigned char *bytes, size_t len, uint64_t numbers)
{
	if (!tracer_config.binary) {
		uint64_t first = seq;
		segment_json(stream, bytes, len);
		seq = first + numbers;
		return;
	}
	room(TRACE_BIN_SEGMENT_HEAD_MAX);
	out_len += trace_bin_segment((unsigned char *)out + out_len, stream, seq + 1, len);
	seq += numbers;
	/* a segment may be larger than the buffer: copied in pieces */
	for (size_t n; len > 0; bytes += n, len -= n) {
		n = len < OUT_BYTES ? len : OUT_BYTES;
		tracer_out_mem((const char *)bytes, n);
	}
}

static void *writer_main(void *arg)
{
	(void)arg;
	tracer_guard();
	while (!atomic_load(&writer_stop)) {
		size_t n = tracer_ring_drain(false);
		tracer_scope_follow_mark();
		if (n == 0) {
			tracer_out_flush();
			tracer_ring_wait_writer(IDLE_WAIT_NS);
		}
	}
	while (tracer_ring_drain(true) > 0)
		;
	return NULL;
}

int tracer_writer_start_thread(void)
{
	int r;

	atomic_store(&writer_stop, 0);
	r = -pthread_create(&writer, NULL, writer_main, NULL);
	writer_running = r == 0;
	return r;
}

void tracer_writer_join(void)
{
	if (!writer_running) {
		while (tracer_ring_drain(true) > 0)
			;
		return;
	}
	atomic_store(&writer_stop, 1);
	tracer_ring_wake_writer();
	pthread_join(writer, NULL);
	writer_running = false;
}
