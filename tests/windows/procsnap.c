/* The daemon's Windows primitives (daemon/windows/) run for real and
 * printed as one JSON line, for test_win_watch.py and the snapshot bench:
 *
 *   procsnap.exe            every process of one snapshot, each with its
 *                           owner and, where it can be opened, the
 *                           creation time GetProcessTimes gives; this
 *                           process's own SID as ConvertSidToStringSid
 *                           writes it; the machine's memory row
 *   procsnap.exe --time N   N snapshots timed: the median of the whole
 *                           call, of the parse of its buffer alone, and of
 *                           the same figures read process by process
 *                           (EnumProcesses, then OpenProcess,
 *                           GetProcessMemoryInfo and GetProcessTimes each)
 *   procsnap.exe --raw      the snapshot's buffer as the call filled it,
 *                           after the address it was at (8 bytes): a seed
 *                           of tests/fuzz/fuzz-win-procs.c */
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <io.h>
#include <jansson.h>
#include <psapi.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winternl.h>

#include "win-owner.h"
#include "win-procs.h"
#include "win-sysmem.h"

static uint64_t now_us(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER t;
	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&t);
	return (uint64_t)(t.QuadPart * 1000000 / freq.QuadPart);
}

/* The creation time of pid by its handle, or 0. */
static uint64_t created_by_handle(uint32_t pid)
{
	FILETIME c, e, k, u;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	uint64_t ret = 0;
	if (!h)
		return 0;
	if (GetProcessTimes(h, &c, &e, &k, &u))
		ret = (uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime;
	CloseHandle(h);
	return ret;
}

static json_t *self_sid(void)
{
	HANDLE token;
	union {
		TOKEN_USER user;
		char bytes[256];
	} info;
	DWORD len;
	char *text = NULL;
	json_t *j = json_null();

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return j;
	if (GetTokenInformation(token, TokenUser, &info, sizeof(info), &len) &&
	    ConvertSidToStringSidA(info.user.User.Sid, &text)) {
		j = json_string(text);
		LocalFree(text);
	}
	CloseHandle(token);
	return j;
}

static json_t *process_json(const struct win_proc *p)
{
	struct win_owner owner;
	json_t *j = json_pack("{s:I, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "pid", (json_int_t)p->pid,
			      "parent", (json_int_t)p->parent, "created", (json_int_t)p->created, "start_ms",
			      (json_int_t)win_procs_start_ms(p->created), "name", p->name, "session",
			      (json_int_t)p->session, "threads", (json_int_t)p->threads, "page_faults",
			      (json_int_t)p->page_faults, "commit", (json_int_t)p->commit, "working_set",
			      (json_int_t)p->working_set, "peak_working_set", (json_int_t)p->peak_working_set);
	uint64_t by_handle = created_by_handle(p->pid);
	json_object_set_new(j, "created_by_handle", by_handle ? json_integer((json_int_t)by_handle) : json_null());
	if (win_owner_read(p->pid, &owner, NULL) == 0) {
		json_object_set_new(j, "sid", json_string(owner.sid));
		json_object_set_new(j, "owner", json_string(owner.name));
	} else {
		json_object_set_new(j, "sid", json_null());
		json_object_set_new(j, "owner", json_null());
	}
	return j;
}

static int print_snapshot(void)
{
	struct win_procs_reader reader = { 0 };
	struct win_procs *s = NULL;
	struct store_system m;
	struct error err = { 0 };
	int r;

	if ((r = win_procs_read(&reader, &s, &err)) < 0) {
		fprintf(stderr, "procsnap: %s\n", err.message);
		return 1;
	}
	json_t *all = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(all, process_json(&s->procs[i]));
	json_t *out = json_pack("{s:I, s:o, s:o}", "self", (json_int_t)GetCurrentProcessId(), "self_sid", self_sid(),
				"processes", all);
	if ((r = win_sysmem_read(0, &m)) < 0) {
		fprintf(stderr, "procsnap: the machine's memory: %s\n", strerror(-r));
		return 1;
	}
	json_object_set_new(out, "memory",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "mem_total", (json_int_t)m.mem_total,
				      "mem_available", (json_int_t)m.mem_available, "swap_total",
				      (json_int_t)m.swap_total, "swap_free", (json_int_t)m.swap_free, "committed_as",
				      (json_int_t)m.committed_as, "commit_limit", (json_int_t)m.commit_limit,
				      "have_pressure", m.have_pressure));
	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	win_procs_free(s);
	win_procs_reader_done(&reader);
	return 0;
}

/* The figures of every process one by one, as a sampler without the
 * snapshot would read them.  Returns how many processes answered. */
static size_t one_by_one(void)
{
	static DWORD pids[65536];
	DWORD bytes = 0;
	size_t answered = 0;

	if (!EnumProcesses(pids, sizeof(pids), &bytes))
		return 0;
	for (size_t i = 0; i < bytes / sizeof(DWORD); i++) {
		HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pids[i]);
		PROCESS_MEMORY_COUNTERS_EX pmc = { .cb = sizeof(pmc) };
		FILETIME c, e, k, u;
		if (!h)
			continue;
		if (GetProcessMemoryInfo(h, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)) &&
		    GetProcessTimes(h, &c, &e, &k, &u))
			answered++;
		CloseHandle(h);
	}
	return answered;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int print_times(unsigned repeats)
{
	struct win_procs_reader reader = { 0 };
	uint64_t *whole = calloc(repeats, sizeof(*whole)), *parse = calloc(repeats, sizeof(*parse)),
		 *each = calloc(repeats, sizeof(*each));
	size_t n = 0, answered = 0;
	struct error err = { 0 };

	if (!whole || !parse || !each) {
		fprintf(stderr, "procsnap: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (unsigned i = 0; i < repeats; i++) {
		struct win_procs *s = NULL;
		uint64_t t0 = now_us();
		if (win_procs_read(&reader, &s, &err) < 0) {
			fprintf(stderr, "procsnap: %s\n", err.message);
			return 1;
		}
		uint64_t t1 = now_us();
		n = s->n;
		win_procs_free(s);
		/* the parse alone, of the buffer filled again by the call */
		ULONG got = 0;
		if (NtQuerySystemInformation(SystemProcessInformation, reader.buf, (ULONG)reader.size, &got) < 0) {
			fprintf(stderr, "procsnap: NtQuerySystemInformation failed\n");
			return 1;
		}
		uint64_t t3 = now_us();
		FILETIME taken;
		GetSystemTimeAsFileTime(&taken);
		if (win_procs_parse(reader.buf, got, (uint64_t)(uintptr_t)reader.buf,
				    (uint64_t)taken.dwHighDateTime << 32 | taken.dwLowDateTime, &s, &err) < 0) {
			fprintf(stderr, "procsnap: %s\n", err.message);
			return 1;
		}
		uint64_t t4 = now_us();
		win_procs_free(s);
		whole[i] = t1 - t0;
		parse[i] = t4 - t3;
		uint64_t t5 = now_us();
		answered = one_by_one();
		each[i] = now_us() - t5;
	}
	printf("{\"processes\": %zu, \"answered_one_by_one\": %zu, \"snapshot_us\": %" PRIu64 ", \"parse_us\": %" PRIu64
	       ", \"one_by_one_us\": %" PRIu64 "}\n",
	       n, answered, median(whole, repeats), median(parse, repeats), median(each, repeats));
	free(whole);
	free(parse);
	free(each);
	win_procs_reader_done(&reader);
	return 0;
}

static int print_raw(void)
{
	ULONG size = 16u << 20, got = 0;
	void *buf = malloc(size);

	if (!buf || NtQuerySystemInformation(SystemProcessInformation, buf, size, &got) < 0) {
		fprintf(stderr, "procsnap: NtQuerySystemInformation failed\n");
		return 1;
	}
	uint64_t address = (uint64_t)(uintptr_t)buf;
	_setmode(_fileno(stdout), _O_BINARY);
	fwrite(&address, sizeof(address), 1, stdout);
	fwrite(buf, 1, got, stdout);
	free(buf);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "procsnap: writing the snapshot: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--raw") == 0)
		return print_raw();
	if (argc == 3 && strcmp(argv[1], "--time") == 0) {
		long n = strtol(argv[2], NULL, 10);
		return print_times(n > 0 && n < 100000 ? (unsigned)n : 1);
	}
	if (argc != 1) {
		fprintf(stderr, "usage: procsnap.exe [--time N | --raw]\n");
		return 2;
	}
	return print_snapshot();
}
