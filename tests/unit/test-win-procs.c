/* The SystemProcessInformation parser (daemon/windows/win-procs.c) on
 * buffers laid out here by hand as Windows lays them out (a 256-byte
 * record, a thread entry of 80 bytes per thread, the image name after
 * them, the next record at a multiple of 8, or right after the name as
 * Wine does) and on one Wine 8.0 filled (tests/data/windows/wine-procs.raw):
 * every field read where the SDK puts it, processes sorted, names in
 * UTF-8 and cut past the limit; a
 * buffer cut anywhere, offsets that point outside it or back into it,
 * one record past RW_WIN_PROCS_MAX and one byte past
 * RW_WIN_PROCS_BUFFER_MAX refused, naming the record; the
 * comparison of two snapshots telling a reused pid from the process that
 * had it. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>

#include "bytes.h"
#include "fileio.h"
#include "limits.h"
#include "text.h"
#include "win-procs.h"

/* Where the reader holds the buffer: the names' Buffer fields point here. */
#define ADDRESS 0x000001f4a0c10000ull
/* when the snapshots were taken: 2026-12-07 (FILETIME ticks) */
#define TAKEN 134411190000000000ull
#define THREAD_ENTRY 80u
#define BUF_MAX (1u << 20)

struct spec {
	uint32_t pid, parent, session, threads, faults;
	uint64_t created, pagefile, private_pages, ws, peak_ws;
	const char *name;       /* ASCII, or NULL for none (the idle process) */
	const uint16_t *units;  /* or these UTF-16 units */
	size_t n_units;
};

static void put16(uint8_t *b, size_t off, uint16_t v)
{
	memcpy(b + off, &v, sizeof(v));
}
static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, sizeof(v));
}
static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

/* Where each record starts: a multiple of 8 as Windows lays them out, or
 * (2) right after the name before, as Wine 8 does. */
static size_t align = 8;

/* Lays out n records into buf (BUF_MAX bytes); the offset of each in
 * ret_at (may be NULL).  Returns the length: up to the end of the last
 * record's name, so that any shorter buffer cuts something. */
static size_t lay_out(uint8_t *buf, const struct spec *s, size_t n, size_t *ret_at)
{
	size_t at = 0, end = 0;

	memset(buf, 0, BUF_MAX);
	for (size_t i = 0; i < n; i++) {
		uint8_t *b = buf + at;
		size_t name_at = WIN_PROCS_RECORD_SIZE + s[i].threads * THREAD_ENTRY;
		size_t units = s[i].units ? s[i].n_units : s[i].name ? strlen(s[i].name) : 0;

		if (ret_at)
			ret_at[i] = at;
		put32(b, WIN_PROCS_OFF_THREADS, s[i].threads);
		put64(b, WIN_PROCS_OFF_CREATED, s[i].created);
		put64(b, WIN_PROCS_OFF_PID, s[i].pid);
		put64(b, WIN_PROCS_OFF_PARENT, s[i].parent);
		put32(b, WIN_PROCS_OFF_SESSION, s[i].session);
		put32(b, WIN_PROCS_OFF_PAGE_FAULTS, s[i].faults);
		put64(b, WIN_PROCS_OFF_PEAK_WS, s[i].peak_ws);
		put64(b, WIN_PROCS_OFF_WS, s[i].ws);
		put64(b, WIN_PROCS_OFF_PAGEFILE, s[i].pagefile);
		put64(b, WIN_PROCS_OFF_PRIVATE_PAGES, s[i].private_pages);
		if (units) {
			put16(b, WIN_PROCS_OFF_NAME_LENGTH, (uint16_t)(2 * units));
			put16(b, WIN_PROCS_OFF_NAME_LENGTH + 2, (uint16_t)(2 * units + 2));
			put64(b, WIN_PROCS_OFF_NAME_BUFFER, ADDRESS + at + name_at);
			for (size_t k = 0; k < units; k++)
				put16(b, name_at + 2 * k, s[i].units ? s[i].units[k] : (uint16_t)s[i].name[k]);
		}
		end = at + name_at + 2 * units;
		size_t next = (name_at + 2 * units + 2 + align - 1) / align * align;
		if (i + 1 < n)
			put32(b, WIN_PROCS_OFF_NEXT, (uint32_t)next);
		at += next;
	}
	return end;
}

static uint8_t *buffer(void)
{
	uint8_t *b = malloc(BUF_MAX);
	assert_non_null(b);
	return b;
}

static const struct spec three[] = {
	{ .pid = 1234, .parent = 880, .session = 1, .threads = 4, .faults = 7021, .created = 134100000000000000ull,
	  .pagefile = 90ull << 20, .private_pages = 90ull << 20, .ws = 70ull << 20, .peak_ws = 75ull << 20,
	  .name = "holder.exe" },
	{ .pid = 0, .threads = 2, .name = NULL },
	{ .pid = 4, .threads = 100, .created = 134099990000000000ull, .pagefile = 200 << 10, .ws = 1 << 20,
	  .peak_ws = 8 << 20, .name = "System" },
};

static void records(size_t record_align)
{
	_cleanup_free_ uint8_t *buf = buffer();
	struct win_procs *s = NULL;
	struct error err = { 0 };

	align = record_align;
	size_t len = lay_out(buf, three, ELEMENTSOF(three), NULL);
	align = 8;
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &s, &err), 0);
	assert_int_equal(s->n, 3);
	/* sorted by pid, whatever the buffer's order */
	assert_int_equal(s->procs[0].pid, 0);
	assert_string_equal(s->procs[0].name, "");
	assert_int_equal(s->procs[0].created, 0);
	assert_int_equal(s->procs[1].pid, 4);
	assert_string_equal(s->procs[1].name, "System");
	assert_int_equal(s->procs[1].threads, 100);
	const struct win_proc *h = &s->procs[2];
	assert_int_equal(h->pid, 1234);
	assert_int_equal(h->parent, 880);
	assert_int_equal(h->session, 1);
	assert_int_equal(h->threads, 4);
	assert_int_equal(h->page_faults, 7021);
	assert_int_equal(h->created, 134100000000000000ull);
	assert_int_equal(h->commit, 90ull << 20);
	assert_int_equal(h->working_set, 70ull << 20);
	assert_int_equal(h->peak_working_set, 75ull << 20);
	assert_string_equal(h->name, "holder.exe");
	assert_ptr_equal(win_procs_find(s, 1234, 134100000000000000ull), h);
	assert_null(win_procs_find(s, 1234, 134100000000000001ull));
	assert_null(win_procs_find(s, 5, 0));
	assert_null(win_procs_free(s));
	assert_null(win_procs_free(NULL));
}

/* Records read alike at Windows's 8-byte steps and Wine's 2-byte ones. */
static void test_records(void **state)
{
	(void)state;
	records(8);
	records(2);
}

/* Commit is PagefileUsage or PrivatePageCount, whichever is filled:
 * Wine fills the first only. */
static void test_commit(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	struct spec s[] = {
		{ .pid = 8, .name = "wine.exe", .pagefile = 5u << 20, .private_pages = 0 },
		{ .pid = 12, .name = "other.exe", .pagefile = 0, .private_pages = 3u << 20 },
	};
	size_t len = lay_out(buf, s, ELEMENTSOF(s), NULL);
	struct win_procs *p = NULL;

	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, NULL), 0);
	assert_int_equal(p->procs[0].commit, 5u << 20);
	assert_int_equal(p->procs[1].commit, 3u << 20);
	win_procs_free(p);
}

static const char *one_name(uint8_t *buf, const uint16_t *units, size_t n, struct win_procs **p)
{
	struct spec s = { .pid = 40, .units = units, .n_units = n };
	size_t len = lay_out(buf, &s, 1, NULL);
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, p, NULL), 0);
	return (*p)->procs[0].name;
}

static void test_names(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	struct win_procs *p = NULL;
	uint16_t units[RW_WIN_PROC_NAME_MAX + 40];

	/* é, 中, U+1F600 as a pair of surrogates */
	static const uint16_t wide[] = { 0xe9, 0x4e2d, 0xd83d, 0xde00, '.', 'e', 'x', 'e' };
	assert_string_equal(one_name(buf, wide, ELEMENTSOF(wide), &p), "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80.exe");
	p = win_procs_free(p);
	/* surrogates without their other half, and a NUL */
	static const uint16_t lone[] = { 'a', 0xdc00, 'b', 0, 'c', 0xd800 };
	assert_string_equal(one_name(buf, lone, ELEMENTSOF(lone), &p),
			    "a" TEXT_REPLACEMENT "b" TEXT_REPLACEMENT "c" TEXT_REPLACEMENT);
	p = win_procs_free(p);

	/* at the limit kept whole; past it cut at the limit */
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		units[i] = 'a' + i % 26;
	const char *name = one_name(buf, units, RW_WIN_PROC_NAME_MAX, &p);
	assert_int_equal(strlen(name), RW_WIN_PROC_NAME_MAX);
	p = win_procs_free(p);
	name = one_name(buf, units, RW_WIN_PROC_NAME_MAX + 40, &p);
	assert_int_equal(strlen(name), RW_WIN_PROC_NAME_MAX);
	assert_memory_equal(name, "abcdefghij", 10);
	p = win_procs_free(p);
	/* a pair across the limit is not split: the name stops before it */
	units[RW_WIN_PROC_NAME_MAX - 1] = 0xd83d;
	units[RW_WIN_PROC_NAME_MAX] = 0xde00;
	name = one_name(buf, units, RW_WIN_PROC_NAME_MAX + 40, &p);
	assert_int_equal(strlen(name), RW_WIN_PROC_NAME_MAX - 1);
	assert_true(text_utf8_valid(name, strlen(name), NULL));
	p = win_procs_free(p);
}

/* A buffer cut anywhere before its end is refused: a record, or the last
 * name, no longer fits. */
static void test_truncated(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	size_t len = lay_out(buf, three, ELEMENTSOF(three), NULL);

	for (size_t cut = 0; cut < len; cut++) {
		struct win_procs *p = NULL;
		struct error err = { 0 };
		int r = win_procs_parse(buf, cut, ADDRESS, TAKEN, &p, &err);
		if (r != -EBADMSG)
			fail_msg("cut at %zu of %zu: %d", cut, len, r);
		assert_null(p);
		assert_non_null(strstr(err.message, "process record "));
	}
}

static void expect_bad(const uint8_t *buf, size_t len, const char *message)
{
	struct win_procs *p = NULL;
	struct error err = { 0 };
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, &err), -EBADMSG);
	assert_null(p);
	if (!strstr(err.message, message))
		fail_msg("'%s' does not say '%s'", err.message, message);
}

/* Offsets that point outside the buffer, back into a record, or past 32
 * bits: each refused with the record it is in. */
static void test_wild_offsets(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	size_t at[3], len = lay_out(buf, three, ELEMENTSOF(three), at);
	uint8_t *second = buf + at[1];
	char where[64];

	snprintf(where, sizeof(where), "process record 1 at offset %zu", at[1]);
	const uint32_t nexts[] = { 0xffffffffu, 8, WIN_PROCS_RECORD_SIZE - 2, (uint32_t)(len - at[1] + 2) };
	for (size_t i = 0; i < ELEMENTSOF(nexts); i++) {
		uint32_t keep = bytes_u32(second, WIN_PROCS_OFF_NEXT);
		put32(second, WIN_PROCS_OFF_NEXT, nexts[i]);
		expect_bad(buf, len, where);
		put32(second, WIN_PROCS_OFF_NEXT, keep);
	}
	/* the next record's offset past the end of the buffer */
	put32(buf + at[2], WIN_PROCS_OFF_NEXT, (uint32_t)((len - at[2] + 8) & ~(size_t)7));
	expect_bad(buf, len, "process record 2");
	put32(buf + at[2], WIN_PROCS_OFF_NEXT, 0);

	/* image names: before the buffer, past its end, across it, at a
	 * wrapping address, of an odd length, of a length but no Buffer */
	uint8_t *first = buf;
	uint64_t name = bytes_u64(first, WIN_PROCS_OFF_NAME_BUFFER);
	static const uint64_t places[] = { ADDRESS - 2, ADDRESS + (1u << 30), 0, UINT64_MAX - 4 };
	for (size_t i = 0; i < ELEMENTSOF(places); i++) {
		put64(first, WIN_PROCS_OFF_NAME_BUFFER, places[i]);
		expect_bad(buf, len, "process record 0 at offset 0: its image name");
	}
	put64(first, WIN_PROCS_OFF_NAME_BUFFER, ADDRESS + len - 4); /* 20 bytes of which 4 inside */
	expect_bad(buf, len, "process record 0 at offset 0: its image name");
	put64(first, WIN_PROCS_OFF_NAME_BUFFER, name);
	put16(first, WIN_PROCS_OFF_NAME_LENGTH, 19);
	expect_bad(buf, len, "process record 0 at offset 0: its image name (19 bytes");
	put16(first, WIN_PROCS_OFF_NAME_LENGTH, 20);

	/* the same buffer read at another address: every name is outside */
	struct win_procs *p = NULL;
	assert_int_equal(win_procs_parse(buf, len, ADDRESS + 0x100000, TAKEN, &p, NULL), -EBADMSG);
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, NULL), 0);
	p = win_procs_free(p);

	/* a process id past 32 bits */
	put64(second, WIN_PROCS_OFF_PID, 1ull << 32);
	expect_bad(buf, len, "process record 1");
	put64(second, WIN_PROCS_OFF_PID, 0);
	put64(second, WIN_PROCS_OFF_PARENT, 1ull << 40);
	expect_bad(buf, len, "a process id past 32 bits");
}

/* RW_WIN_PROCS_MAX records are read; one more is refused. */
static void test_limit(void **state)
{
	(void)state;
	size_t len = (size_t)(RW_WIN_PROCS_MAX + 1) * WIN_PROCS_RECORD_SIZE;
	_cleanup_free_ uint8_t *buf = calloc(1, len);
	struct win_procs *p = NULL;
	struct error err = { 0 };

	assert_non_null(buf);
	for (size_t i = 0; i <= RW_WIN_PROCS_MAX; i++) {
		put64(buf + i * WIN_PROCS_RECORD_SIZE, WIN_PROCS_OFF_PID, 4 * (i + 1));
		if (i < RW_WIN_PROCS_MAX)
			put32(buf + i * WIN_PROCS_RECORD_SIZE, WIN_PROCS_OFF_NEXT, WIN_PROCS_RECORD_SIZE);
	}
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, &err), -E2BIG);
	assert_null(p);
	assert_non_null(strstr(err.message, "more than 65536 processes"));
	/* the last record made the last */
	put32(buf + (RW_WIN_PROCS_MAX - 1) * (size_t)WIN_PROCS_RECORD_SIZE, WIN_PROCS_OFF_NEXT, 0);
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, &err), 0);
	assert_int_equal(p->n, RW_WIN_PROCS_MAX);
	assert_int_equal(p->procs[RW_WIN_PROCS_MAX - 1].pid, 4 * RW_WIN_PROCS_MAX);
	win_procs_free(p);
}

/* A buffer of RW_WIN_PROCS_BUFFER_MAX bytes is read; one byte more is
 * refused, whatever it holds. */
static void test_buffer_limit(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = calloc(1, RW_WIN_PROCS_BUFFER_MAX + 1);
	struct win_procs *p = NULL;
	struct error err = { 0 };

	assert_non_null(buf);
	put64(buf, WIN_PROCS_OFF_PID, 4);
	assert_int_equal(win_procs_parse(buf, RW_WIN_PROCS_BUFFER_MAX, ADDRESS, TAKEN, &p, &err), 0);
	assert_int_equal(p->n, 1);
	p = win_procs_free(p);
	assert_int_equal(win_procs_parse(buf, RW_WIN_PROCS_BUFFER_MAX + 1, ADDRESS, TAKEN, &p, &err), -E2BIG);
	assert_null(p);
	assert_non_null(strstr(err.message, "more than 67108864"));
}

struct change {
	enum win_procs_change change;
	uint32_t pid;
	uint64_t created;
};

struct changes {
	struct change seen[16];
	size_t n, stop_after;
};

static int record(void *userdata, enum win_procs_change change, const struct win_proc *p)
{
	struct changes *c = userdata;
	assert_true(c->n < ELEMENTSOF(c->seen));
	c->seen[c->n++] = (struct change){ change, p->pid, p->created };
	return c->n == c->stop_after ? -ECANCELED : 0;
}

static struct win_procs *snapshot(uint8_t *buf, const struct spec *s, size_t n)
{
	struct win_procs *p = NULL;
	size_t len = lay_out(buf, s, n, NULL);
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, NULL), 0);
	return p;
}

/* Between two snapshots: the processes that exited, those that started,
 * and a pid given to another process (a new creation time) as both. */
static void test_compare(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	const uint64_t t1 = 134100000000000000ull, t2 = t1 + 10000000, t3 = t2 + 10000000;
	struct spec before_s[] = {
		{ .pid = 4, .name = "System" },
		{ .pid = 100, .created = t1, .name = "a.exe" },
		{ .pid = 200, .created = t1, .name = "b.exe" },
	};
	struct spec now_s[] = {
		{ .pid = 300, .created = t3, .name = "d.exe" },
		{ .pid = 4, .name = "System" },
		{ .pid = 100, .created = t2, .name = "c.exe" },
	};
	struct win_procs *before = snapshot(buf, before_s, ELEMENTSOF(before_s));
	struct win_procs *now = snapshot(buf, now_s, ELEMENTSOF(now_s));
	struct changes c = { 0 };
	const struct change want[] = {
		{ WIN_PROCS_EXITED, 100, t1 },
		{ WIN_PROCS_STARTED, 100, t2 },
		{ WIN_PROCS_EXITED, 200, t1 },
		{ WIN_PROCS_STARTED, 300, t3 },
	};

	assert_int_equal(win_procs_compare(before, now, record, &c), 0);
	assert_int_equal(c.n, ELEMENTSOF(want));
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		assert_int_equal(c.seen[i].change, want[i].change);
		assert_int_equal(c.seen[i].pid, want[i].pid);
		assert_int_equal(c.seen[i].created, want[i].created);
	}
	assert_string_equal(win_procs_find(now, 100, t2)->name, "c.exe");
	assert_null(win_procs_find(now, 100, t1));

	/* nothing changed: nothing called */
	c = (struct changes){ 0 };
	assert_int_equal(win_procs_compare(now, now, record, &c), 0);
	assert_int_equal(c.n, 0);
	/* the first snapshot: every process started */
	assert_int_equal(win_procs_compare(NULL, now, record, &c), 0);
	assert_int_equal(c.n, 3);
	for (size_t i = 0; i < c.n; i++)
		assert_int_equal(c.seen[i].change, WIN_PROCS_STARTED);
	/* the callback's error stops the walk and is returned */
	c = (struct changes){ .stop_after = 2 };
	assert_int_equal(win_procs_compare(before, now, record, &c), -ECANCELED);
	assert_int_equal(c.n, 2);
	win_procs_free(before);
	win_procs_free(now);
}

/* Marks carried from one snapshot to the next: a process still there
 * keeps its own, a new one and a pid given to another process start from
 * 0, whatever order the buffer lists them in. */
static void test_carry(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	const uint64_t t1 = 134100000000000000ull, t2 = t1 + 10000000, t3 = t2 + 10000000;
	struct spec before_s[] = {
		{ .pid = 200, .created = t1, .name = "b.exe" },
		{ .pid = 4, .name = "System" },
		{ .pid = 100, .created = t1, .name = "a.exe" },
		{ .pid = 500, .created = t1, .name = "e.exe" },
	};
	struct spec now_s[] = {
		{ .pid = 500, .created = t1, .name = "e.exe" },
		{ .pid = 300, .created = t3, .name = "d.exe" },
		{ .pid = 4, .name = "System" },
		{ .pid = 100, .created = t2, .name = "c.exe" },
		{ .pid = 200, .created = t1, .name = "b.exe" },
	};
	struct win_procs *before = snapshot(buf, before_s, ELEMENTSOF(before_s));
	struct win_procs *now = snapshot(buf, now_s, ELEMENTSOF(now_s));
	uint8_t marks_before[4], marks_now[5];

	/* each of before marked with its pid's last digit and 1 */
	for (size_t i = 0; i < before->n; i++)
		marks_before[i] = (uint8_t)(before->procs[i].pid / 100 + 1);
	memset(marks_now, 0xff, sizeof(marks_now));
	win_procs_carry(before, marks_before, now, marks_now);
	for (size_t j = 0; j < now->n; j++) {
		uint32_t pid = now->procs[j].pid;
		uint8_t want = pid == 4 ? 1 : pid == 200 ? 3 : pid == 500 ? 6 : 0; /* 100: another process; 300: new */
		assert_int_equal(marks_now[j], want);
	}
	/* no snapshot before: nothing carried */
	memset(marks_now, 0xff, sizeof(marks_now));
	win_procs_carry(NULL, NULL, now, marks_now);
	for (size_t j = 0; j < now->n; j++)
		assert_int_equal(marks_now[j], 0);
	win_procs_free(before);
	win_procs_free(now);
}

/* A buffer Wine 8.0 filled (procsnap.exe --raw, the holder running): its
 * records one right after another's name, the address it was read at in
 * its first 8 bytes. */
static void test_wine_capture(void **state)
{
	(void)state;
	_cleanup_free_ char *data = NULL;
	size_t size = 0;
	struct win_procs *s = NULL;
	struct error err = { 0 };
	uint64_t address;

	assert_int_equal(read_full_fileat(AT_FDCWD, fixture("windows/wine-procs.raw"), 1 << 20, &data, &size), 0);
	assert_true(size > sizeof(address));
	memcpy(&address, data, sizeof(address));
	if (win_procs_parse(data + sizeof(address), size - sizeof(address), address, TAKEN, &s, &err) < 0)
		fail_msg("%s", err.message);
	assert_int_equal(s->n, 8);
	const struct win_proc *h = win_procs_find(s, 32, 134410804268997900ull);
	assert_non_null(h);
	assert_string_equal(h->name, "holder.exe");
	assert_int_equal(h->threads, 4);
	assert_int_equal(h->commit, 84717568);        /* PagefileUsage: RssAnon and VmSwap */
	assert_int_equal(h->working_set, 102993920);
	assert_int_equal(h->page_faults, 0);          /* Wine counts none */
	const char *names[] = { "holder.exe",	   "services.exe", "winedevice.exe", "winedevice.exe",
				"plugplay.exe",	   "svchost.exe",  "rpcss.exe",	     "procsnap.exe" };
	for (size_t i = 0; i < s->n; i++) {
		assert_string_equal(s->procs[i].name, names[i]);
		assert_int_equal(s->procs[i].session, 1);
		assert_true(s->procs[i].commit > 0 && s->procs[i].created > WIN_FILETIME_UNIX_EPOCH);
	}
	win_procs_free(s);
}

/* Wine lists a process still being created with its creation time unset
 * (0x55 in every byte); such a time, or any past the snapshot's by more
 * than the slack, reads 0 (not known yet), while one within the slack (a
 * clock set back) is kept. */
static void test_created_not_yet(void **state)
{
	(void)state;
	_cleanup_free_ uint8_t *buf = buffer();
	struct spec s[] = {
		{ .pid = 300, .name = "young.exe", .created = 0x5555555555555555ull },
		{ .pid = 304, .name = "ahead.exe", .created = TAKEN + WIN_PROCS_CREATED_SLACK },
		{ .pid = 308, .name = "past.exe", .created = TAKEN + WIN_PROCS_CREATED_SLACK + 1 },
		{ .pid = 312, .name = "old.exe", .created = TAKEN - 1 },
	};
	size_t len = lay_out(buf, s, ELEMENTSOF(s), NULL);
	struct win_procs *p = NULL;

	assert_int_equal(win_procs_parse(buf, len, ADDRESS, TAKEN, &p, NULL), 0);
	assert_int_equal(p->n, 4);
	assert_int_equal(p->procs[0].created, 0);
	assert_string_equal(p->procs[0].name, "young.exe");
	assert_int_equal(p->procs[1].created, TAKEN + WIN_PROCS_CREATED_SLACK);
	assert_int_equal(p->procs[2].created, 0);
	assert_int_equal(p->procs[3].created, TAKEN - 1);
	win_procs_free(p);
	/* and at the end of time, no overflow */
	assert_int_equal(win_procs_parse(buf, len, ADDRESS, UINT64_MAX, &p, NULL), 0);
	assert_int_equal(p->procs[0].created, 0x5555555555555555ull);
	win_procs_free(p);
}

static void test_filetime(void **state)
{
	(void)state;
	assert_int_equal(win_procs_start_ms(WIN_FILETIME_UNIX_EPOCH), 0);
	assert_int_equal(win_procs_start_ms(WIN_FILETIME_UNIX_EPOCH + 10000), 1);
	assert_int_equal(win_procs_start_ms(WIN_FILETIME_UNIX_EPOCH + 19999), 1);
	/* 2026-12-07 00:00:00 UTC */
	assert_int_equal(win_procs_start_ms(WIN_FILETIME_UNIX_EPOCH + 17966016000000000ull), 1796601600000ll);
	assert_int_equal(win_procs_start_ms(WIN_FILETIME_UNIX_EPOCH - 1), -1);
	assert_int_equal(win_procs_start_ms(0), -11644473600000ll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),	  cmocka_unit_test(test_commit),  cmocka_unit_test(test_names),
		cmocka_unit_test(test_truncated), cmocka_unit_test(test_wild_offsets), cmocka_unit_test(test_limit), cmocka_unit_test(test_buffer_limit),
		cmocka_unit_test(test_compare),	  cmocka_unit_test(test_carry),	  cmocka_unit_test(test_wine_capture),
		cmocka_unit_test(test_created_not_yet), cmocka_unit_test(test_filetime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
