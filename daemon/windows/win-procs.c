/* See win-procs.h: the records of SystemProcessInformation read from the
 * bytes alone, so the same code runs on Linux against buffers laid out by
 * hand.
 *
 * The buffer is trusted no more than a file: every record must lie whole
 * within it, each NextEntryOffset moves forward by at least a record (so
 * the walk ends, and records never overlap), and a name's Buffer, an
 * address in the reader's memory, must point at bytes of the buffer
 * itself.  Records need not be aligned (every field is read with memcpy):
 * Windows starts each at a multiple of 8, Wine 8 right after the name of
 * the one before (measured: NextEntryOffset 442 for a process of one
 * thread).  Two passes: the first checks every record and counts what the
 * names take, the second fills the records, so a bad buffer allocates
 * nothing. */
#include "win-procs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "limits.h"
#include "macro.h"

/* UTF-8 bytes a UTF-16 unit takes at most (a pair of surrogates, 4 bytes
 * for two units; any other unit, 3 at most). */
#define UTF8_PER_UNIT 3u

/* Where the name of the record at b lies in buf, checked: its offset in
 * buf and its length in UTF-16 units.  Returns 0 or -EBADMSG. */
static int name_place(const uint8_t *b, size_t len, uint64_t address, size_t *ret_offset, size_t *ret_units)
{
	uint16_t bytes = bytes_u16(b, WIN_PROCS_OFF_NAME_LENGTH);
	uint64_t where = bytes_u64(b, WIN_PROCS_OFF_NAME_BUFFER);

	if (bytes % 2)
		return -EBADMSG;
	*ret_units = bytes / 2;
	*ret_offset = 0;
	if (bytes == 0)
		return 0; /* the idle process has none, and a NULL Buffer */
	if (where < address || where - address > len || bytes > len - (where - address))
		return -EBADMSG;
	*ret_offset = (size_t)(where - address);
	return 0;
}

static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The UTF-8 of units UTF-16LE units at s, at most RW_WIN_PROC_NAME_MAX of
 * them (a pair of surrogates is never cut), into out, NUL-terminated.
 * Returns the bytes written, the NUL included. */
static size_t name_utf8(const uint8_t *s, size_t units, char *out)
{
	size_t i = 0, o = 0;

	if (units > RW_WIN_PROC_NAME_MAX) {
		uint32_t last = bytes_u16(s, 2 * (RW_WIN_PROC_NAME_MAX - 1)), after = bytes_u16(s, 2 * RW_WIN_PROC_NAME_MAX);
		bool pair = last >= 0xd800 && last < 0xdc00 && after >= 0xdc00 && after < 0xe000;
		units = RW_WIN_PROC_NAME_MAX - (pair ? 1 : 0);
	}
	while (i < units) {
		uint32_t c = bytes_u16(s, 2 * i);
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < units) {
			uint32_t low = bytes_u16(s, 2 * (i + 1));
			if (low >= 0xdc00 && low < 0xe000) {
				o += put_utf8(out + o, 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00));
				i += 2;
				continue;
			}
		}
		if ((c >= 0xd800 && c < 0xe000) || c == 0)
			c = 0xfffd; /* a surrogate without its other half; a NUL would cut the name */
		o += put_utf8(out + o, c);
		i++;
	}
	out[o++] = 0;
	return o;
}

/* The first pass: every record checked, *ret_n of them, their names
 * taking at most *ret_names bytes. */
static int check(const uint8_t *buf, size_t len, uint64_t address, size_t *ret_n, size_t *ret_names,
		 struct error *err)
{
	size_t pos = 0, n = 0, names = 0;

	if (len > RW_WIN_PROCS_BUFFER_MAX)
		return error_set(err, -E2BIG, "a process list of %zu bytes, more than %u", len, RW_WIN_PROCS_BUFFER_MAX);
	for (;;) {
		const uint8_t *b = buf + pos;
		size_t offset, units;
		uint32_t next;

		if (len - pos < WIN_PROCS_RECORD_SIZE)
			return error_set(err, -EBADMSG, "process record %zu at offset %zu: %zu bytes left of the %u it takes",
					 n, pos, len - pos, WIN_PROCS_RECORD_SIZE);
		if (n == RW_WIN_PROCS_MAX)
			return error_set(err, -E2BIG, "more than %u processes", RW_WIN_PROCS_MAX);
		if (bytes_u64(b, WIN_PROCS_OFF_PID) > UINT32_MAX || bytes_u64(b, WIN_PROCS_OFF_PARENT) > UINT32_MAX)
			return error_set(err, -EBADMSG, "process record %zu at offset %zu: a process id past 32 bits", n, pos);
		if (name_place(b, len, address, &offset, &units) < 0)
			return error_set(err, -EBADMSG,
					 "process record %zu at offset %zu: its image name (%u bytes at %#llx) is not within "
					 "the buffer",
					 n, pos, (unsigned)bytes_u16(b, WIN_PROCS_OFF_NAME_LENGTH),
					 (unsigned long long)bytes_u64(b, WIN_PROCS_OFF_NAME_BUFFER));
		names += (units < RW_WIN_PROC_NAME_MAX ? units : RW_WIN_PROC_NAME_MAX) * UTF8_PER_UNIT + 1;
		n++;
		next = bytes_u32(b, WIN_PROCS_OFF_NEXT);
		if (next == 0)
			break;
		if (next < WIN_PROCS_RECORD_SIZE || next > len - pos)
			return error_set(err, -EBADMSG,
					 "process record %zu at offset %zu: the next is %u bytes on, not a whole record "
					 "within the %zu bytes",
					 n - 1, pos, next, len);
		pos += next;
	}
	*ret_n = n;
	*ret_names = names;
	return 0;
}

static int cmp_identity(uint32_t pid_a, uint64_t created_a, uint32_t pid_b, uint64_t created_b)
{
	if (pid_a != pid_b)
		return pid_a < pid_b ? -1 : 1;
	if (created_a != created_b)
		return created_a < created_b ? -1 : 1;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct win_proc *x = a, *y = b;
	return cmp_identity(x->pid, x->created, y->pid, y->created);
}

int win_procs_parse(const void *buf, size_t len, uint64_t address, uint64_t taken, struct win_procs **ret,
		    struct error *err)
{
	uint64_t latest = taken > UINT64_MAX - WIN_PROCS_CREATED_SLACK ? UINT64_MAX : taken + WIN_PROCS_CREATED_SLACK;
	const uint8_t *bytes = buf;
	size_t n = 0, names_size = 0, pos = 0, used = 0;
	int r;

	if ((r = check(bytes, len, address, &n, &names_size, err)) < 0)
		return r;
	_cleanup_free_ struct win_procs *s = calloc(1, sizeof(*s));
	if (!s)
		return error_set(err, -ENOMEM, "out of memory");
	s->procs = calloc(n, sizeof(*s->procs));
	s->names = malloc(names_size);
	if (!s->procs || !s->names) {
		free(s->procs);
		free(s->names);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *b = bytes + pos;
		struct win_proc *p = &s->procs[i];
		size_t offset = 0, units = 0;
		uint64_t pagefile = bytes_u64(b, WIN_PROCS_OFF_PAGEFILE);
		uint64_t private_pages = bytes_u64(b, WIN_PROCS_OFF_PRIVATE_PAGES);
		uint64_t created = bytes_u64(b, WIN_PROCS_OFF_CREATED);

		(void)name_place(b, len, address, &offset, &units); /* checked by the first pass */
		*p = (struct win_proc){
			.pid = (uint32_t)bytes_u64(b, WIN_PROCS_OFF_PID),
			.parent = (uint32_t)bytes_u64(b, WIN_PROCS_OFF_PARENT),
			.created = created <= latest ? created : 0,
			.name = s->names + used,
			.session = bytes_u32(b, WIN_PROCS_OFF_SESSION),
			.threads = bytes_u32(b, WIN_PROCS_OFF_THREADS),
			.page_faults = bytes_u32(b, WIN_PROCS_OFF_PAGE_FAULTS),
			.commit = pagefile > private_pages ? pagefile : private_pages,
			.working_set = bytes_u64(b, WIN_PROCS_OFF_WS),
			.peak_working_set = bytes_u64(b, WIN_PROCS_OFF_PEAK_WS),
		};
		used += name_utf8(bytes + offset, units, s->names + used);
		pos += bytes_u32(b, WIN_PROCS_OFF_NEXT);
	}
	s->n = n;
	qsort(s->procs, n, sizeof(*s->procs), cmp_proc);
	*ret = TAKE_PTR(s);
	return 0;
}

struct win_procs *win_procs_free(struct win_procs *s)
{
	if (s) {
		free(s->procs);
		free(s->names);
		free(s);
	}
	return NULL;
}

const struct win_proc *win_procs_find(const struct win_procs *s, uint32_t pid, uint64_t created)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_identity(s->procs[mid].pid, s->procs[mid].created, pid, created);
		if (c == 0)
			return &s->procs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int win_procs_compare(const struct win_procs *before, const struct win_procs *now, win_procs_change_t fn,
		      void *userdata)
{
	size_t i = 0, j = 0, nb = before ? before->n : 0, nn = now ? now->n : 0;
	int r;

	while (i < nb || j < nn) {
		int c = i == nb ? 1 :
			j == nn ? -1 :
				  cmp_identity(before->procs[i].pid, before->procs[i].created, now->procs[j].pid,
					       now->procs[j].created);
		if (c == 0) {
			i++;
			j++;
			continue;
		}
		if (c < 0)
			r = fn(userdata, WIN_PROCS_EXITED, &before->procs[i++]);
		else
			r = fn(userdata, WIN_PROCS_STARTED, &now->procs[j++]);
		if (r < 0)
			return r;
	}
	return 0;
}

void win_procs_carry(const struct win_procs *before, const uint8_t *marks_before, const struct win_procs *now,
		     uint8_t *marks_now)
{
	size_t i = 0, nb = before ? before->n : 0;

	for (size_t j = 0; j < now->n; j++) {
		const struct win_proc *p = &now->procs[j];
		int c = -1;
		while (i < nb && (c = cmp_identity(before->procs[i].pid, before->procs[i].created, p->pid, p->created)) < 0)
			i++;
		marks_now[j] = i < nb && c == 0 ? marks_before[i] : 0;
	}
}

int64_t win_procs_start_ms(uint64_t created)
{
	if (created >= WIN_FILETIME_UNIX_EPOCH)
		return (int64_t)((created - WIN_FILETIME_UNIX_EPOCH) / 10000u);
	return -(int64_t)((WIN_FILETIME_UNIX_EPOCH - created + 9999u) / 10000u);
}
