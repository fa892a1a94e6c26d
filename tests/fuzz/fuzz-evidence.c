/* libFuzzer target: the evidence readers on random memory.  The input is a
 * memory image (memimage.h); whatever the parser accepts is read by the
 * evidence pass over a fixed set of regions shaped like a Python process
 * with glibc blocks, a numpy array split by madvise, an arena heap and a
 * brk heap.  Every structure check also reads the raw input as bytes.
 * Nothing may crash, leak, loop or read out of bounds, and the pass must
 * keep conservation: whatever it splits, the regions' counts add up to
 * what they were. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "evidence-internal.h"
#include "evidence.h"
#include "limits.h"
#include "memimage.h"
#include "smaps.h"
#include "strpool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KB(x) #x " kB\n"
#define REGION(range, perms, path, size, rss, flags)                                                         \
	range " " perms " 00000000 00:00 0 " path "\nSize: " size " kB\nRss: " rss " kB\nPss: " rss             \
	" kB\nPrivate_Dirty: " rss " kB\nAnonymous: " rss " kB\nSwap: 0 kB\nVmFlags: " flags "\n"

static const char smaps[] =
	REGION("00400000-00401000", "r-xp", "/usr/bin/python3.11", "4", "4", "rd ex mr mw me")
	REGION("555500000000-555500100000", "rw-p", "[heap]", "1024", "512", "rd wr mr mw me ac")
	REGION("7f0000000000-7f0000400000", "rw-p", "", "4096", "4096", "rd wr mr mw me ac")
	REGION("7f0000400000-7f0000401000", "rw-p", "", "4", "4", "rd wr mr mw me ac")
	REGION("7f0000401000-7f0000c01000", "rw-p", "", "8192", "2048", "rd wr mr mw me ac hg")
	REGION("7f0004000000-7f0004200000", "rw-p", "", "2048", "1024", "rd wr mr mw me ac")
	REGION("7f0004200000-7f0008000000", "---p", "", "63488", "0", "mr mw me nr")
	REGION("7f0010000000-7f0012000000", "rw-p", "", "32768", "30000", "rd wr mr mw me ac");

static void check_bytes(const uint8_t *data, size_t size)
{
	uint32_t arena;
	uint64_t used;
	const uint64_t a = 0x7f0004000000;
	(void)evidence_glibc_chunk(data, size, a, a + 64 * 1024 * 1024);
	(void)evidence_glibc_heap_info(data, size, a, 0x200000);
	(void)evidence_pymalloc_pool(data, size, a, &arena);
	(void)evidence_glibc_tcache(data, size);
	(void)evidence_jemalloc_base(data, size, a, a + 8 * 1024 * 1024);
	(void)evidence_mimalloc_segment(data, size, 0x42000000000, 0x42000000000 + 64 * 1024 * 1024, &used);
	(void)evidence_tcmalloc_spans(data, size, 0x555500000000, 0x555500100000);
}

static uint64_t sum(const struct region *r, size_t n, enum region_count c)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += region_field(&r[i], c);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memimage *img = NULL;
	struct strpool *pool = strpool_new();
	struct smaps_parser p;
	struct memsource src;
	struct evidence_result res;
	char msg[192];
	size_t n = 0;

	check_bytes(data, size);
	if (!pool)
		return 0;
	if (memimage_parse((const char *)data, size, &img, msg, sizeof(msg)) < 0) {
		strpool_free(pool);
		return 0;
	}
	smaps_parser_init(&p, 64, pool);
	if (smaps_parser_feed(&p, smaps, sizeof(smaps) - 1) < 0 || smaps_parser_finish(&p) < 0)
		abort(); /* the fixed smaps is valid */
	struct region *r = smaps_parser_take(&p, &n);
	smaps_parser_done(&p);
	if (classify_regions(r, n, NULL) < 0)
		abort();
	uint64_t rss = sum(r, n, COUNT_RSS), anon = sum(r, n, COUNT_ANONYMOUS), pss = sum(r, n, COUNT_PSS);

	memimage_source(img, &src);
	src.max_probes = 4096;
	if (evidence_apply(&src, &r, &n, 256, pool, &res) == 0) {
		if (sum(r, n, COUNT_RSS) != rss || sum(r, n, COUNT_ANONYMOUS) != anon || sum(r, n, COUNT_PSS) != pss)
			abort();
		for (size_t i = 1; i < n; i++)
			if (r[i].start < r[i - 1].end || r[i].start >= r[i].end)
				abort();
	}
	regions_free(r);
	memimage_free(img);
	strpool_free(pool);
	return 0;
}
