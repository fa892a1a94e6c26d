/* jemalloc's heap read from outside: what the program still uses of the
 * extents jemalloc holds, and what jemalloc keeps free (heap-walk.h).
 *
 * jemalloc knows every extent it holds through one radix tree, the
 * extent map (emap/rtree in its sources), whose root is an array in its
 * own data: 2^18 pointers on a 64-bit build for 48-bit addresses and
 * 4 KiB pages, each to a leaf of 2^18 words that tell, for each page of
 * 1 GiB of address space, which extent holds it (edata_t, 128 bytes,
 * kept in jemalloc's base blocks), in what state and of what size class.
 * The walk:
 *   1. finds jemalloc's image: libjemalloc.so mapped, or a program that
 *      holds jemalloc itself (redis built from its sources) where the
 *      evidence pass read jemalloc's base blocks; reads its version
 *      string (in memory, or from the library's file as the process sees
 *      it) and takes the layout of that version from the table
 *      (heap-jemalloc-layout.c);
 *   2. finds the root in the image's data by its shape: the words around
 *      it are zero, or pointers to leaves in anonymous memory whose place
 *      in the array is 1 GiB of address space where the process maps
 *      memory;
 *   3. reads the leaves' resident pages and the extents they name, and
 *      checks that they agree (each page's word names an extent that
 *      holds the page, in the state the extent says, extents in address
 *      order without overlap, slabs of the size their class makes with
 *      the count of free regions their bitmap shows); the size classes
 *      follow from the build's quantum, confirmed by the extents;
 *   4. reads the leaves again: a map that changed meanwhile is read again
 *      (a bounded number of times), then unknown with the reason.
 * In use is what stats.allocated counts (the regions of slabs not free,
 * the usable size of large extents); free what stats.active less
 * stats.allocated counts (free regions, the page a large extent carries
 * for cache-oblivious placement) and the dirty and muzzy extents jemalloc
 * keeps to reuse (returnable: arena.<i>.purge would give them back);
 * jemalloc's metadata (base blocks: extent records, the map's leaves) is
 * overhead; retained extents hold no memory.
 *
 * The process is never stopped: a walk of a busy allocator may check out
 * and still not be one instant (heap-walk.h). */
#include "heap-jemalloc-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "heap-walkers.h"
#include "util.h"

#define READ_BATCH 512u /* extent records read at once */

/* ------------------------------------------------------------ one walk */

/* What reading a leaf is about: its chunk of address space, and the hash
 * of its words, to tell a map that changed while it was read. */
struct leaf_read {
	uint64_t leaf, chunk, hash;
	bool verify;
};

static int note_entries(struct jemalloc_walk *j, uint64_t addr, const uint8_t *page, void *arg)
{
	const struct jemalloc_layout *l = j->lay;
	struct leaf_read *lr = arg;
	uint64_t low_mask = (1ull << l->lg_vaddr) - 1, meta_end = l->leaf_state_shift + l->leaf_state_width;
	/* the bits between the state and the record's address are zero */
	uint64_t between = ((uint64_t)l->edata_align - 1) & ~((1ull << meta_end) - 1);

	for (size_t k = 0; k < JEMALLOC_PAGE; k += 8) {
		uint64_t v = jemalloc_get64(page + k);
		if (!v || addr + k < lr->leaf || addr + k >= lr->leaf + jemalloc_leaf_bytes(l))
			continue;
		lr->hash = (lr->hash ^ v ^ (addr + k)) * 0x100000001b3ull;
		if (lr->verify)
			continue;
		uint64_t index = (addr + k - lr->leaf) / 8;
		uint64_t key = (lr->chunk << (l->lg_page + l->leaf_bits)) | (index << l->lg_page);
		if ((v & between) || ((v & low_mask) == 0 && (v & ((1ull << meta_end) - 1))))
			return jemalloc_fail(j, WALK_MOVED, "a word of jemalloc's extent map for 0x%" PRIx64 " is not one", key);
		if (array_grow((void **)&j->entries, j->n_entries, &j->entries_allocated, sizeof(*j->entries), 256) < 0)
			return -ENOMEM;
		j->entries[j->n_entries++] = (struct entry){ key, v };
	}
	return WALK_OK;
}

/* Reads the leaves of the root at root: their words into j->entries, or
 * with verify, checks that they are what they were. */
static int read_leaves(struct jemalloc_walk *j, uint64_t root, bool verify)
{
	uint64_t end = root + jemalloc_root_bytes(j->lay);
	size_t leaf = 0;
	bool swapped;
	int r;

	for (size_t i = jemalloc_words_from(j, root); i < j->n_words && j->words[i].key < end; i++, leaf++) {
		struct leaf_read lr = {
			.leaf = j->words[i].bits, .chunk = (j->words[i].key - root) / 8,
			.hash = 0xcbf29ce484222325ull, .verify = verify,
		};
		/* each leaf is a question to the page tables, even when none
		 * of its pages is read: the deadline bounds them */
		if (j->in->limits && j->in->limits->deadline_us && now_monotonic_us() > j->in->limits->deadline_us)
			return jemalloc_fail(j, WALK_NO, "out of time (the census's budget)");
		r = jemalloc_each_page(j, lr.leaf, lr.leaf + jemalloc_leaf_bytes(j->lay), JEMALLOC_BATCH_PAGES, false,
				       &swapped, note_entries, &lr);
		if (r != WALK_OK)
			return r;
		if (swapped)
			return jemalloc_fail(j, WALK_NO, "part of jemalloc's extent map is in swap");
		if (verify) {
			if (leaf >= j->n_leaves || j->leaf_hash[leaf] != lr.hash)
				return jemalloc_fail(j, WALK_MOVED, "the extent map changed while it was read");
			continue;
		}
		uint64_t *hashes = realloc(j->leaf_hash, (leaf + 1) * sizeof(*hashes));
		if (!hashes)
			return -ENOMEM;
		j->leaf_hash = hashes;
		j->leaf_hash[leaf] = lr.hash;
		j->n_leaves = leaf + 1;
	}
	if (verify && leaf != j->n_leaves)
		return jemalloc_fail(j, WALK_MOVED, "the extent map changed while it was read");
	return WALK_OK;
}

static uint64_t record_at(const struct jemalloc_walk *j, uint64_t v)
{
	const struct jemalloc_layout *l = j->lay;
	/* the low lg_vaddr bits, sign-extended, less the metadata bits */
	uint64_t x = v << (64 - l->lg_vaddr);
	return (uint64_t)((int64_t)x >> (64 - l->lg_vaddr)) & ~((uint64_t)l->edata_align - 1);
}

static int cmp_record(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

static struct record *find_record(const struct jemalloc_walk *j, uint64_t at)
{
	struct record key = { .at = at };
	return j->n_records ? bsearch(&key, j->records, j->n_records, sizeof(*j->records), cmp_record) : NULL;
}

/* Reads every extent record the entries name. */
static int read_records(struct jemalloc_walk *j)
{
	const struct jemalloc_layout *l = j->lay;
	_cleanup_free_ uint64_t *at = malloc((j->n_entries + 1) * sizeof(*at));
	size_t n = 0;
	int r;

	if (!at)
		return -ENOMEM;
	for (size_t i = 0; i < j->n_entries; i++) {
		uint64_t a = record_at(j, j->entries[i].bits);
		if (a)
			at[n++] = a;
	}
	n = jemalloc_unique(at, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = jemalloc_anon_end(j->in, at[i]);
		if (!end || at[i] + l->edata_size > end)
			return jemalloc_fail(j, WALK_MOVED, "an extent record at 0x%" PRIx64 " is not in jemalloc's memory", at[i]);
	}
	free(j->records);
	j->n_records = 0;
	if (!(j->records = calloc(n ? n : 1, sizeof(*j->records))))
		return -ENOMEM;
	/* the pages that hold them, asked about at once */
	_cleanup_free_ uint64_t *pages = malloc((n + 1) * sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		pages[i] = at[i] & ~(JEMALLOC_PAGE - 1);
	size_t np = jemalloc_unique(pages, n);
	_cleanup_(page_runs_done) struct page_runs runs = { 0 };
	if ((r = memsource_pages(j->in->src, pages, np, &runs)) < 0)
		return r;
	_cleanup_free_ uint8_t *buf = malloc((size_t)READ_BATCH * l->edata_size);
	if (!buf)
		return -ENOMEM;
	struct mem_probe probes[READ_BATCH];
	for (size_t i = 0; i < n; i += READ_BATCH) {
		size_t m = n - i < READ_BATCH ? n - i : READ_BATCH;
		for (size_t k = 0; k < m; k++)
			probes[k] = (struct mem_probe){
				.addr = at[i + k], .len = l->edata_size, .buf = buf + k * l->edata_size, .runs = &runs
			};
		if ((r = jemalloc_read_probes(j, probes, m)) != WALK_OK)
			return r;
		for (size_t k = 0; k < m; k++) {
			if (probes[k].got != l->edata_size)
				return jemalloc_fail(j, WALK_MOVED, "an extent record at 0x%" PRIx64 " is not in memory", at[i + k]);
			const uint8_t *b = buf + k * l->edata_size;
			struct record *rec = &j->records[j->n_records++];
			rec->at = at[i + k];
			rec->bits = jemalloc_get64(b + l->off_bits);
			/* a large extent's address may carry the offset of
			 * cache-oblivious placement: its pages start below */
			rec->addr = jemalloc_get64(b + l->off_addr) & ~(JEMALLOC_PAGE - 1);
			rec->size = jemalloc_get64(b + l->off_size) & ~(JEMALLOC_PAGE - 1);
			for (unsigned g = 0; g < l->bitmap_bits / 64 && g < ELEMENTSOF(rec->bitmap); g++)
				rec->bitmap[g] = jemalloc_get64(b + l->off_bitmap + 8 * g);
		}
	}
	return WALK_OK;
}

static int add_piece(struct jemalloc_walk *j, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free_bytes,
		     bool returnable)
{
	if (array_grow((void **)&j->pieces, j->n_pieces, &j->pieces_allocated, sizeof(*j->pieces), 256) < 0)
		return -ENOMEM;
	j->pieces[j->n_pieces++] = (struct piece){ start, end, in_use, free_bytes, returnable };
	return 0;
}

static bool all_private(const struct jemalloc_walk *j, uint64_t start, uint64_t end)
{
	return heap_walk_private(j->w, start, end) == end - start;
}

static bool none_private(const struct jemalloc_walk *j, uint64_t start, uint64_t end)
{
	return heap_walk_private(j->w, start, end) == 0;
}

/* A slab: its regions not free are in use, the rest of it free.  Where
 * only some of its pages are private memory, a piece a page, each with
 * the bytes of the regions in use on it. */
static int slab_pieces(struct jemalloc_walk *j, const struct record *rec, uint64_t reg, uint64_t nregs, uint64_t nfree)
{
	uint64_t in_use = (nregs - nfree) * reg, start = rec->addr, end = rec->addr + rec->size;

	if (all_private(j, start, end) || none_private(j, start, end))
		return add_piece(j, start, end, in_use, rec->size - in_use, false);
	for (uint64_t p = start; p < end; p += JEMALLOC_PAGE) {
		uint64_t used = 0;
		/* the regions that meet this page */
		for (uint64_t k = (p - start) / reg; k < nregs && start + k * reg < p + JEMALLOC_PAGE; k++) {
			if ((rec->bitmap[k / 64] >> (k % 64)) & 1)
				continue; /* a set bit is a free region */
			uint64_t a = start + k * reg, b = a + reg;
			a = a > p ? a : p;
			b = b < p + JEMALLOC_PAGE ? b : p + JEMALLOC_PAGE;
			used += b - a;
		}
		int r = add_piece(j, p, p + JEMALLOC_PAGE, used, JEMALLOC_PAGE - used, false);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Decodes the entries and records with the size classes of one quantum:
 * the pieces and the counts, or why they do not check out. */
static int decode(struct jemalloc_walk *j, const struct jemalloc_classes *sc)
{
	const struct jemalloc_layout *l = j->lay;
	uint64_t prev_end = 0, cur_start = 0, cur_end = 0, cur_at = 0;
	unsigned cur_state = 0;
	bool pad_known = false;
	int r;

	j->n_pieces = 0;
	memset(&j->counts, 0, sizeof(j->counts));
	j->pad = 0;
	for (size_t i = 0; i < j->n_records; i++)
		j->records[i].head_seen = false;
	for (size_t i = 0; i < j->n_entries; i++) {
		const struct entry *e = &j->entries[i];
		uint64_t at = record_at(j, e->bits);
		unsigned lstate = (unsigned)jemalloc_bits(e->bits, l->leaf_state_shift, l->leaf_state_width);
		unsigned lszind = (unsigned)(e->bits >> l->lg_vaddr);
		if (!at) {
			/* a cleared word: no extent, the size class past the last */
			if (lszind != sc->n)
				return jemalloc_fail(j, WALK_MOVED, "a cleared word of the map says %u size classes, not %u", lszind,
					    sc->n);
			continue;
		}
		struct record *rec = find_record(j, at);
		if (!rec)
			return jemalloc_fail(j, WALK_MOVED, "an extent record was not read");
		unsigned state = (unsigned)jemalloc_bits(rec->bits, l->state_shift, l->state_width);
		bool slab = jemalloc_bits(rec->bits, l->slab_shift, 1);
		unsigned szind = (unsigned)jemalloc_bits(rec->bits, l->szind_shift, l->szind_width);
		if (state >= JEMALLOC_TRANSITION || lstate >= JEMALLOC_TRANSITION)
			return jemalloc_fail(j, WALK_MOVED, "an extent was changing state");
		if (lstate != state)
			return jemalloc_fail(j, WALK_MOVED, "the map and an extent at 0x%" PRIx64 " disagree on its state", e->key);
		if (e->key != rec->addr) {
			/* a later page of the extent begun last */
			if (at != cur_at || e->key <= cur_start || e->key >= cur_end || state != cur_state)
				return jemalloc_fail(j, WALK_MOVED, "the map names an extent for 0x%" PRIx64 " that does not hold it",
					    e->key);
			continue;
		}
		/* the first page of an extent */
		if (rec->head_seen || rec->size == 0 || rec->addr + rec->size < rec->addr || rec->addr < prev_end)
			return jemalloc_fail(j, WALK_MOVED, "extents at 0x%" PRIx64 " overlap", e->key);
		/* jemalloc keeps every extent it holds mapped, retained ones too */
		uint64_t mapped = jemalloc_anon_end(j->in, rec->addr);
		if (!mapped || rec->addr + rec->size > mapped)
			return jemalloc_fail(j, WALK_MOVED, "an extent at 0x%" PRIx64 " of %" PRIu64 " bytes is not all mapped",
					     e->key, rec->size);
		if (jemalloc_bits(rec->bits, l->pai_shift, 1))
			return jemalloc_fail(j, WALK_NO, "its huge page allocator (opt.hpa) is on: its page slabs are not read");
		/* an extent given back keeps the map's size class and slab bit
		 * of its last use (pa_dalloc leaves them): only one in use
		 * must agree */
		if (state == JEMALLOC_ACTIVE && ((e->bits & 1) != slab || lszind != szind))
			return jemalloc_fail(j, WALK_MOVED, "the map and the extent at 0x%" PRIx64 " disagree on its size class",
				    e->key);
		rec->head_seen = true;
		cur_at = at;
		cur_start = rec->addr;
		cur_end = prev_end = rec->addr + rec->size;
		cur_state = state;
		j->counts.extents++;
		if (state == JEMALLOC_ACTIVE && slab) {
			if (szind >= sc->nbins || rec->size != ((uint64_t)sc->slab_pages[szind] << sc->lg_page))
				return jemalloc_fail(j, WALK_MOVED, "a slab at 0x%" PRIx64 " of %" PRIu64 " bytes is not of its class",
					    e->key, rec->size);
			uint64_t reg = sc->size[szind], nregs = rec->size / reg;
			uint64_t nfree = jemalloc_bits(rec->bits, l->nfree_shift, l->nfree_width), set = 0;
			if (nregs > l->bitmap_bits || nfree > nregs)
				return jemalloc_fail(j, WALK_MOVED, "a slab at 0x%" PRIx64 " has %" PRIu64 " free of %" PRIu64, e->key,
					    nfree, nregs);
			/* its bitmap: a bit set for each free region, none past them */
			for (uint64_t g = 0; g * 64 < nregs; g++) {
				uint64_t word = rec->bitmap[g], valid = nregs - g * 64 >= 64 ? ~0ull
											 : (1ull << (nregs - g * 64)) - 1;
				if (word & ~valid)
					return jemalloc_fail(j, WALK_MOVED, "a slab's bitmap at 0x%" PRIx64 " is not one", e->key);
				set += (uint64_t)__builtin_popcountll(word);
			}
			if (set != nfree)
				return jemalloc_fail(j, WALK_MOVED, "a slab at 0x%" PRIx64 " counts %" PRIu64 " free regions, its bitmap %" PRIu64,
					    e->key, nfree, set);
			j->counts.slabs++;
			j->counts.in_use += (nregs - nfree) * reg;
			j->counts.free += rec->size - (nregs - nfree) * reg;
			if ((r = slab_pieces(j, rec, reg, nregs, nfree)) < 0)
				return r;
		} else if (state == JEMALLOC_ACTIVE) {
			if (szind >= sc->n || sc->size[szind] > rec->size)
				return jemalloc_fail(j, WALK_MOVED, "a large extent at 0x%" PRIx64 " is smaller than its class", e->key);
			uint64_t usize = sc->size[szind];
			if (szind >= sc->nbins) {
				/* the page a build for cache-oblivious placement adds, or none: the same for all */
				uint64_t pad = rec->size - usize;
				if ((pad != 0 && pad != JEMALLOC_PAGE) || (pad_known && pad != j->pad))
					return jemalloc_fail(j, WALK_MOVED, "a large extent at 0x%" PRIx64 " of %" PRIu64
						    " bytes for %" PRIu64, e->key, rec->size, usize);
				j->pad = pad;
				pad_known = true;
			}
			j->counts.large++;
			j->counts.in_use += usize;
			j->counts.free += rec->size - usize;
			if ((r = add_piece(j, rec->addr, rec->addr + rec->size, usize, rec->size - usize, false)) < 0)
				return r;
		} else if (state == JEMALLOC_RETAINED) {
			j->counts.retained++; /* address space only: no memory */
		} else {
			if (state == JEMALLOC_DIRTY)
				j->counts.dirty++;
			else
				j->counts.muzzy++;
			j->counts.free += rec->size;
			if ((r = add_piece(j, rec->addr, rec->addr + rec->size, 0, rec->size, true)) < 0)
				return r;
		}
	}
	for (size_t i = 0; i < j->n_records; i++)
		if (!j->records[i].head_seen)
			return jemalloc_fail(j, WALK_MOVED, "an extent the map names has no first page in it");
	return WALK_OK;
}

/* The regions the walk accounts for: those of the malloc class the
 * evidence pass gave to jemalloc, and those where the map found extents. */
static int add_covers(struct jemalloc_walk *j, bool with_entries)
{
	const struct heap_walk_input *in = j->in;
	size_t e = 0;
	int r;

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *reg = &in->regions[i];
		if (reg->cls != CLASS_MALLOC)
			continue;
		bool cover = jemalloc_rule(reg);
		while (with_entries && e < j->n_entries && j->entries[e].key < reg->start)
			e++;
		if (with_entries && e < j->n_entries && j->entries[e].key < reg->end)
			cover = true;
		if (cover && (r = heap_walk_cover(j->w, in->src, reg->start, reg->end)) < 0)
			return r;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void reset_walk(struct jemalloc_walk *j)
{
	enum class_id cls = j->w->cls;
	uint64_t bytes = j->w->bytes_read;
	heap_walk_done(j->w);
	j->w->cls = cls;
	j->w->bytes_read = bytes;
	j->n_entries = 0;
	j->n_pieces = 0;
	j->n_leaves = 0;
}

/* One walk from a root: WALK_OK with the spans in j->w, or why not. */
static int walk_root(struct jemalloc_walk *j, uint64_t root)
{
	struct jemalloc_classes sc;
	int r, first = -1;
	char why[sizeof(j->why)] = "";

	reset_walk(j);
	if ((r = read_leaves(j, root, false)) != WALK_OK)
		return r;
	/* leaves come in address order, and their words within them */
	if (j->n_entries)
		qsort(j->entries, j->n_entries, sizeof(*j->entries), cmp_entry);
	if ((r = add_covers(j, true)) < 0)
		return r;
	if ((r = read_records(j)) != WALK_OK)
		return r;
	/* the quantum the extents confirm */
	j->lg_quantum = 0;
	for (size_t q = 0; q < ELEMENTSOF(j->lay->lg_quanta) && j->lay->lg_quanta[q]; q++) {
		if (jemalloc_size_classes(j->lay->lg_quanta[q], j->lay->lg_page, &sc) < 0)
			continue;
		r = decode(j, &sc);
		if (r < 0)
			return r;
		if (r == WALK_OK) {
			j->lg_quantum = sc.lg_quantum;
			break;
		}
		if (first < 0) {
			first = r;
			memcpy(why, j->why, sizeof(why));
		}
	}
	if (!j->lg_quantum) {
		memcpy(j->why, why, sizeof(why));
		return first;
	}
	/* the map did not move while the records were read */
	size_t n_entries = j->n_entries;
	j->n_entries = 0;
	r = read_leaves(j, root, true);
	j->n_entries = n_entries;
	if (r != WALK_OK)
		return r;
	for (size_t i = 0; i < j->n_pieces; i++) {
		const struct piece *p = &j->pieces[i];
		r = p->returnable ? heap_walk_add_free(j->w, p->start, p->end, p->start, p->end)
				  : heap_walk_add(j->w, p->start, p->end, p->in_use, p->free);
		if (r < 0)
			return r == -EINVAL ? jemalloc_fail(j, WALK_MOVED, "extents out of order") : r;
	}
	return WALK_OK;
}

/* "12,345" */
static const char *with_commas(char *buf, size_t size, uint64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), k = 0;
	size_t o = 0;
	for (int i = 0; i < n && o + 2 < size; i++) {
		buf[o++] = digits[i];
		k = n - i - 1;
		if (k && k % 3 == 0)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

static void describe(struct jemalloc_walk *j)
{
	char e[32], s[32], l[32], d[32];
	snprintf(j->w->how, sizeof(j->w->how), "jemalloc %u.%u.%u: %s extents, %s slabs, %s large, %s dirty or muzzy",
		 j->ver.major, j->ver.minor, j->ver.bugfix, with_commas(e, sizeof(e), j->counts.extents),
		 with_commas(s, sizeof(s), j->counts.slabs), with_commas(l, sizeof(l), j->counts.large),
		 with_commas(d, sizeof(d), j->counts.dirty + j->counts.muzzy));
}

static void jw_done(struct jemalloc_walk *j)
{
	free(j->chunks);
	free(j->roots);
	free(j->words);
	free(j->entries);
	free(j->records);
	free(j->pieces);
	free(j->batch);
	free(j->leaf_hash);
}

/* The walk failed: the regions the evidence pass gave jemalloc are
 * unknown, with the reason. */
static int give_up(struct jemalloc_walk *j, unsigned tries)
{
	char n[32] = "";

	reset_walk(j);
	int r = add_covers(j, false);
	if (r < 0)
		return r;
	j->w->failed = true;
	if (tries > 1)
		snprintf(n, sizeof(n), ", %u tries", tries);
	if (j->ver.text[0])
		snprintf(j->w->why_not, sizeof(j->w->why_not), "jemalloc %u.%u.%u: %s%s", j->ver.major, j->ver.minor,
			 j->ver.bugfix, j->why, n);
	else
		snprintf(j->w->why_not, sizeof(j->w->why_not), "jemalloc: %s%s", j->why, n);
	return 0;
}

int heap_walk_jemalloc(const struct heap_walk_input *in, struct heap_walk *w)
{
	struct jemalloc_walk j = { .in = in, .w = w };
	unsigned retries = in->limits ? in->limits->retries : 0, tries = 0;
	bool found = false;
	int r;

	w->cls = CLASS_MALLOC;
	j.max_bytes = in->limits ? in->limits->max_bytes : 0;
	if (!jemalloc_find_image(&j))
		return 0;
	/* the version, and its layout */
	r = jemalloc_find_version(&j, &found);
	if (r < 0)
		goto out;
	if (r == WALK_NO) {
		r = give_up(&j, 0);
		goto out;
	}
	if (!found) {
		jemalloc_fail(&j, WALK_NO, "its version string was not found in %s", jemalloc_file_name(j.image->path));
		r = give_up(&j, 0);
		goto out;
	}
	if (!(j.lay = jemalloc_layout_of(&j.ver))) {
		jemalloc_fail(&j, WALK_NO, "no layout of this version is known (%s)", j.ver.text);
		r = give_up(&j, 0);
		goto out;
	}
	/* where its extent map's root is */
	r = jemalloc_find_roots(&j);
	if (r < 0)
		goto out;
	if (r == WALK_OK && j.n_roots == 0) {
		bool any = false;
		for (size_t i = 0; i < in->n_regions && !any; i++)
			any = jemalloc_rule(&in->regions[i]);
		if (!any) {
			r = 0; /* jemalloc holds nothing here yet */
			goto out;
		}
		r = jemalloc_fail(&j, WALK_NO, "its extent map was not found in the data of %s", jemalloc_file_name(j.image->path));
	}
	/* the walk, again while the map moves under it */
	for (tries = 1; r == WALK_OK || r == WALK_MOVED; tries++) {
		for (size_t k = 0; k < j.n_roots; k++) {
			r = walk_root(&j, j.roots[k]);
			if (r != WALK_MOVED)
				break;
		}
		if (r == WALK_OK || r < 0 || tries > retries)
			break;
	}
	if (r < 0)
		goto out;
	if (r == WALK_OK) {
		describe(&j);
		r = 0;
	} else {
		r = give_up(&j, tries);
	}
out:
	jw_done(&j);
	if (r < 0)
		heap_walk_done(w);
	return r;
}
