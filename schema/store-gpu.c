/* Writing GPU memory: the devices (stored once, in gpus, by UUID), each
 * device's memory every StoreInterval, the memory each watched process
 * holds on each device, and the devices of a census's GPU section.
 *
 * The workload: a host has a handful of GPUs, and the processes using
 * them are a few per GPU, so a cycle writes a few dozen rows; the device
 * is looked up by its UUID every time (a unique index), as paths are, so
 * that no cached id outlives a rollback. */
#include <errno.h>

#include "gpu.h"
#include "store-coalesce.h"
#include "store-internal.h"

/* A byte count, or NULL when unknown. */
static int bind_bytes(sqlite3_stmt *st, int i, uint64_t v)
{
	return v == GPU_BYTES_UNKNOWN ? sqlite3_bind_null(st, i) : store_bind_u64(st, i, v);
}

int store_gpu_id(struct store *s, const char *uuid, const char *name, unsigned index, uint64_t total, int64_t seen,
		 int64_t *ret)
{
	/* the name and index as last seen (an index can change with a reboot);
	 * the total once known */
	static const char sql[] =
		"INSERT INTO gpus (uuid, name, device_index, total, first_seen, last_seen)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?5)"
		" ON CONFLICT (uuid) DO UPDATE SET"
		"  name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE name END,"
		"  device_index = excluded.device_index,"
		"  total = coalesce(excluded.total, total),"
		"  first_seen = min(first_seen, excluded.first_seen),"
		"  last_seen = max(last_seen, excluded.last_seen)"
		" RETURNING id";
	sqlite3_stmt *st;
	int r, rc;

	if (!uuid || !uuid[0])
		return store_failf(s, -EINVAL, "gpu: a device without a UUID");
	r = store_stmt(s, STMT_GPU_FIND, sql, &st);
	if (r < 0)
		return r;
	rc = store_bind_text(st, 1, uuid);
	rc |= store_bind_text(st, 2, name ? name : "");
	rc |= sqlite3_bind_int64(st, 3, index);
	rc |= total == 0 || total == GPU_BYTES_UNKNOWN ? sqlite3_bind_null(st, 4) : store_bind_u64(st, 4, total);
	rc |= sqlite3_bind_int64(st, 5, seen);
	r = store_bound(s, st, rc, "gpu");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "gpu", ret);
	if (r < 0)
		return r;
	if (r == 0)
		return store_failf(s, -EIO, "gpu: no row id returned");
	return 0;
}

int store_put_gpu_device(struct store *s, int64_t time, const struct gpu_device *d, int64_t *ret_gpu_id)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO gpu_devices (gpu_id, time, present, total, used, free, error)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	sqlite3_stmt *st;
	int64_t id;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_gpu_id(s, d->uuid, d->name, d->index, d->present ? d->total : 0, time, &id);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_GPU_DEVICE_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, id);
	rc |= sqlite3_bind_int64(st, 2, time);
	rc |= sqlite3_bind_int(st, 3, d->present);
	if (d->present) {
		rc |= bind_bytes(st, 4, d->total);
		rc |= bind_bytes(st, 5, d->used);
		rc |= bind_bytes(st, 6, d->free);
	} else
		rc |= store_bind_text(st, 7, d->error[0] ? d->error : "the device did not answer");
	/* else: unbound parameters are NULL */
	r = store_bound_run(s, st, rc, "gpu device");
	if (r < 0)
		return r;
	if (ret_gpu_id)
		*ret_gpu_id = id;
	return 0;
}

int store_put_gpu_sample(struct store *s, int64_t process_id, int64_t gpu_id, int64_t time, uint64_t used)
{
	static const char sql[] =
		"INSERT INTO gpu_samples (process_id, resolution, time, gpu_id, used_max, used_last)"
		" VALUES (?1, 0, ?2, ?3, ?4, ?4)"
		" ON CONFLICT (process_id, resolution, time, gpu_id) DO UPDATE SET"
		"  used_max = max(used_max, excluded.used_max), used_last = excluded.used_last";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (used == GPU_BYTES_UNKNOWN)
		return store_failf(s, -EINVAL, "gpu sample: an unknown figure is not stored");
	r = store_sample_apart(s, process_id, time);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_GPU_SAMPLE_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, time);
	rc |= sqlite3_bind_int64(st, 3, gpu_id);
	rc |= store_bind_u64(st, 4, used);
	return store_bound_run(s, st, rc, "gpu sample");
}

int store_put_census_gpu(struct store *s, int64_t census_id, int64_t time, const struct census *c)
{
	/* the same device twice (a census read from JSON may list it so):
	 * the figures add up */
	static const char sql[] =
		"INSERT INTO census_gpu_rows (census_id, gpu_id, used, graphics) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (census_id, gpu_id) DO UPDATE SET used = used + excluded.used";
	sqlite3_stmt *st;
	int64_t id;
	int r, rc;

	for (size_t i = 0; i < c->gpu.n_uses; i++) {
		const struct census_gpu_use *u = &c->gpu.uses[i];

		/* a use of a device NVML gave no UUID for cannot be named */
		if (!u->uuid[0])
			continue;
		r = store_gpu_id(s, u->uuid, u->name, u->index, u->total, time, &id);
		if (r < 0)
			return r;
		r = store_stmt(s, STMT_CENSUS_GPU_PUT, sql, &st);
		if (r < 0)
			return r;
		rc = sqlite3_bind_int64(st, 1, census_id);
		rc |= sqlite3_bind_int64(st, 2, id);
		rc |= bind_bytes(st, 3, u->used);
		rc |= sqlite3_bind_int(st, 4, u->graphics);
		r = store_bound_run(s, st, rc, "census gpu");
		if (r < 0)
			return r;
	}
	return 0;
}
