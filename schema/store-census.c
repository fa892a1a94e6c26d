/* Writing a census: its row, its class totals, its largest regions, its
 * files, and the region events found against the census before it.  The
 * census is written whole, then store-delta.c keeps only its changes from
 * its key census when they are few.  File
 * paths are stored once, in paths, and referred to by id.
 *
 * Paths are looked up in the database every time rather than cached: a
 * census has a few dozen of them, a lookup in the unique index costs a few
 * microseconds, and no cache can then hold the id of a path whose insert a
 * rollback undid. */
#include <errno.h>

#include "classes.h"
#include "store-internal.h"

/* The id of path in paths, adding it when it is new.  Returns 0 with *ret
 * or a negative errno. */
static int path_id(struct store *s, const char *path, int64_t *ret)
{
	sqlite3_stmt *st;
	int r;

	r = store_stmt(s, STMT_PATH_FIND, "SELECT id FROM paths WHERE path = ?1", &st);
	if (r < 0)
		return r;
	r = store_bound(s, st, store_bind_text(st, 1, path), "path");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "path", ret);
	if (r != 0) /* found, or failed */
		return r < 0 ? r : 0;

	r = store_stmt(s, STMT_PATH_ADD, "INSERT INTO paths (path) VALUES (?1)", &st);
	if (r < 0)
		return r;
	r = store_bound_run(s, st, store_bind_text(st, 1, path), "path");
	if (r < 0)
		return r;
	*ret = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* Binds path's id at i, or NULL for no path. */
static int bind_path(struct store *s, sqlite3_stmt *st, int i, const char *path)
{
	int64_t id;
	int r;

	if (!path)
		return sqlite3_bind_null(st, i);
	r = path_id(s, path, &id);
	if (r < 0)
		return r;
	return sqlite3_bind_int64(st, i, id);
}

/* A memory counter of a class, region or file: NULL in a light census,
 * which did not read them (its sizes and counts are known). */
static int bind_counter(sqlite3_stmt *st, int i, uint64_t v, const struct census *c)
{
	return c->light ? sqlite3_bind_null(st, i) : store_bind_u64(st, i, v);
}

static int put_classes(struct store *s, int64_t census_id, const struct census *c)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_CLASS_PUT,
		       "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed)"
		       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		       &st);
	if (r < 0)
		return r;
	for (int k = 0; k < _CLASS_MAX; k++) {
		const struct census_totals *t = &c->classes[k];
		/* A class with no region has no row: zero everywhere is implied. */
		if (t->count == 0)
			continue;
		rc = sqlite3_bind_int64(st, 1, census_id);
		rc |= store_bind_text(st, 2, class_key((enum class_id)k));
		rc |= bind_counter(st, 3, t->private, c);
		rc |= bind_counter(st, 4, t->resident, c);
		rc |= bind_counter(st, 5, t->pss, c);
		rc |= bind_counter(st, 6, t->swap, c);
		rc |= store_bind_u64(st, 7, t->size);
		rc |= store_bind_u64(st, 8, t->count);
		rc |= bind_counter(st, 9, t->confirmed, c);
		r = store_bound_run(s, st, rc, "census classes");
		if (r < 0)
			return r;
	}
	return 0;
}

static int put_regions(struct store *s, int64_t census_id, const struct census *c)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_REGION_PUT,
		       "INSERT INTO census_region_rows (census_id, rank, start, \"end\", perms, class, rule, private,"
		       "                                resident, path_id, evidence, confirmed, part)"
		       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
		       &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_largest; i++) {
		const struct census_region *x = &c->largest[i];

		rc = bind_path(s, st, 10, x->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, census_id);
		rc |= sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		/* addresses as signed 64-bit integers (two's complement) */
		rc |= sqlite3_bind_int64(st, 3, (sqlite3_int64)x->start);
		rc |= sqlite3_bind_int64(st, 4, (sqlite3_int64)x->end);
		rc |= store_bind_text(st, 5, x->perms);
		rc |= store_bind_text(st, 6, class_key(x->cls));
		rc |= store_bind_text(st, 7, x->rule);
		rc |= bind_counter(st, 8, x->private, c);
		rc |= bind_counter(st, 9, x->resident, c);
		rc |= store_bind_text(st, 11, x->evidence);
		rc |= sqlite3_bind_int(st, 12, x->confirmed);
		rc |= sqlite3_bind_int(st, 13, x->part);
		r = store_bound_run(s, st, rc, "census regions");
		if (r < 0)
			return r;
	}
	return 0;
}

static int put_files(struct store *s, int64_t census_id, const struct census *c)
{
	/* Two entries of one path (a census read from JSON may hold them)
	 * add up rather than fail the census. */
	static const char sql[] =
		"INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT (census_id, path_id) DO UPDATE SET"
		"  private = private + excluded.private, resident = resident + excluded.resident,"
		"  size = size + excluded.size, regions = regions + excluded.regions";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_FILE_PUT, sql, &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_files; i++) {
		const struct census_file *f = &c->files[i];
		const char *kind = file_kind_name(f->kind);

		if (!f->path || !kind)
			return store_failf(s, -EINVAL, "census files: file %zu has no path or an unknown kind", i);
		rc = bind_path(s, st, 2, f->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, census_id);
		rc |= store_bind_text(st, 3, kind);
		rc |= bind_counter(st, 4, f->private, c);
		rc |= bind_counter(st, 5, f->resident, c);
		rc |= store_bind_u64(st, 6, f->size);
		rc |= store_bind_u64(st, 7, f->regions);
		r = store_bound_run(s, st, rc, "census files");
		if (r < 0)
			return r;
	}
	return 0;
}

const enum status_counter store_status_columns[STORE_N_STATUS_COLUMNS] = {
	STATUS_VM_SWAP, STATUS_RSS_ANON, STATUS_RSS_FILE, STATUS_RSS_SHMEM, STATUS_VM_LCK, STATUS_HUGETLB_PAGES,
};

/* store_status_columns bound from parameter first on; a counter the kernel
 * did not give (RssAnon before Linux 4.5, HugetlbPages before 4.4) stays
 * NULL, as it is unknown. */
static int bind_status_counters(sqlite3_stmt *st, int first, const struct census *c)
{
	int rc = 0;

	for (int i = 0; i < STORE_N_STATUS_COLUMNS; i++)
		if (c->have_status && status_has(&c->status, store_status_columns[i]))
			rc |= store_bind_u64(st, first + i, c->status.counter[store_status_columns[i]]);
	return rc;
}

/* The cost as the caller measured it, else as the census did. */
static int64_t cost(int64_t given, const struct census *c, int64_t measured)
{
	return given >= 0 || !c ? given : measured;
}

int store_put_census(struct store *s, int64_t process_id, const struct store_census *m, const struct census *c,
		     int64_t *ret_id)
{
	static const char sql[] =
		"INSERT INTO censuses (process_id, time, trigger, status, light, message, private, resident, pss,"
		"  swap, size, regions, counter_private, counter_resident, peak_resident, wall_us, cpu_us, bytes_read,"
		"  gpu_state, gpu_driver_version, nvidia_mapped, evidence_taken, evidence_why_not, evidence_regions,"
		"  evidence_confirmed, evidence_split, evidence_reads, evidence_bytes, counter_swap, counter_rss_anon,"
		"  counter_rss_file, counter_rss_shmem, counter_locked, counter_hugetlb)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"
		"  ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34)";
	const char *trigger = store_trigger_name(m->trigger), *status = store_census_status_name(m->status);
	bool ok = m->status == CENSUS_OK;
	sqlite3_stmt *st;
	int64_t id;
	uint64_t v;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (!trigger || !status)
		return store_failf(s, -EINVAL, "census: unknown trigger %d or status %d", (int)m->trigger,
				   (int)m->status);
	if (ok && m->repeats_time > 0)
		return store_put_repeat(s, process_id, m, ret_id);
	if (ok && !c)
		return store_failf(s, -EINVAL, "census: status ok without a census");

	r = store_stmt(s, STMT_CENSUS_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, m->time);
	rc |= store_bind_text(st, 3, trigger);
	rc |= store_bind_text(st, 4, status);
	rc |= sqlite3_bind_int(st, 5, m->light);
	rc |= store_bind_text(st, 6, m->message);
	/* A census that did not succeed may have stopped half-way: its totals
	 * are not the process's, so none are kept. */
	if (ok) {
		rc |= store_bind_u64(st, 7, c->totals.private);
		rc |= store_bind_u64(st, 8, c->totals.resident);
		rc |= store_bind_u64(st, 9, c->totals.pss);
		rc |= store_bind_u64(st, 10, c->totals.swap);
		rc |= store_bind_u64(st, 11, c->totals.size);
		rc |= store_bind_u64(st, 12, c->totals.count);
		if (c->have_status && status_private(&c->status, &v))
			rc |= store_bind_u64(st, 13, v);
		if (c->have_status && status_has(&c->status, STATUS_VM_RSS))
			rc |= store_bind_u64(st, 14, c->status.counter[STATUS_VM_RSS]);
		if (c->have_status && status_has(&c->status, STATUS_VM_HWM))
			rc |= store_bind_u64(st, 15, c->status.counter[STATUS_VM_HWM]);
		rc |= bind_status_counters(st, 29, c);
		/* the GPU section, when one was taken (NULL: not looked at) */
		if (c->gpu.taken) {
			rc |= store_bind_text(st, 19, gpu_state_name(c->gpu.state));
			rc |= store_bind_opt(st, 20, c->gpu.driver_version > 0 ? c->gpu.driver_version : -1);
			rc |= sqlite3_bind_int(st, 21, c->gpu.nvidia_mapped);
		}
		rc |= sqlite3_bind_int(st, 22, c->evidence.taken);
		rc |= store_bind_text(st, 23, c->evidence.why_not[0] ? c->evidence.why_not : NULL);
		rc |= store_bind_opt(st, 24, c->evidence.regions);
		rc |= store_bind_opt(st, 25, c->evidence.confirmed);
		rc |= store_bind_opt(st, 26, c->evidence.split);
		rc |= store_bind_opt(st, 27, c->evidence.reads);
		rc |= store_bind_opt(st, 28, c->evidence.bytes);
	}
	rc |= store_bind_opt(st, 16, cost(m->wall_us, c, c ? c->wall_us : -1));
	rc |= store_bind_opt(st, 17, cost(m->cpu_us, c, c ? c->cpu_us : -1));
	rc |= store_bind_opt(st, 18, cost(m->bytes_read, c, c ? c->bytes_read : -1));
	r = store_bound_run(s, st, rc, "census");
	if (r < 0)
		return r;
	id = sqlite3_last_insert_rowid(s->db);

	if (ok) {
		r = put_classes(s, id, c);
		if (r >= 0)
			r = put_regions(s, id, c);
		if (r >= 0)
			r = put_files(s, id, c);
		if (r >= 0 && c->gpu.taken)
			r = store_put_census_gpu(s, id, m->time, c);
		if (r >= 0)
			r = store_delta_census(s, process_id, id);
		if (r < 0)
			return r;
	}
	if (ret_id)
		*ret_id = id;
	return 0;
}

int store_put_region_events(struct store *s, int64_t process_id, int64_t census_id, int64_t time,
			    const struct region_event *events, size_t n)
{
	static const char sql[] =
		"INSERT INTO region_events (process_id, census_id, time, kind, start, inode, path_id, class, size,"
		"  size_before, private, private_before, resident, resident_before)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_EVENT_PUT, sql, &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		const struct region_event *e = &events[i];
		const char *kind = region_event_kind_name(e->kind);

		if (!kind)
			return store_failf(s, -EINVAL, "region events: unknown kind %d", (int)e->kind);
		rc = bind_path(s, st, 7, e->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, process_id);
		rc |= sqlite3_bind_int64(st, 2, census_id);
		rc |= sqlite3_bind_int64(st, 3, time);
		rc |= store_bind_text(st, 4, kind);
		rc |= sqlite3_bind_int64(st, 5, (sqlite3_int64)e->start);
		rc |= sqlite3_bind_int64(st, 6, (sqlite3_int64)e->inode);
		rc |= store_bind_text(st, 8, class_key((enum class_id)e->cls));
		rc |= store_bind_u64(st, 9, e->size);
		rc |= store_bind_u64(st, 10, e->size_before);
		rc |= store_bind_u64(st, 11, e->private);
		rc |= store_bind_u64(st, 12, e->private_before);
		rc |= store_bind_u64(st, 13, e->resident);
		rc |= store_bind_u64(st, 14, e->resident_before);
		r = store_bound_run(s, st, rc, "region events");
		if (r < 0)
			return r;
	}
	return 0;
}
