/* A census to JSON (jansson); reading it back is census-json-read.c. */
#include "census-json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "classify.h"
#include "fileio.h"
#include "json-field.h"
#include "limits.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"
#include "text.h"

/* ------------------------------------------------------------ writing */

/* Paths, command lines and names are bytes to the kernel, not always
 * UTF-8, which JSON must be: they go out through text_json_string. */

static json_t *address(uint64_t a)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, a);
	return json_string(buf);
}

static json_t *counter(const struct census *c, enum status_counter k)
{
	if (!c->have_status || !status_has(&c->status, k))
		return json_null();
	return json_integer((json_int_t)c->status.counter[k]);
}

static json_t *counters_json(const struct census *c)
{
	uint64_t private;
	bool known = c->have_status && status_private(&c->status, &private);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "private", known ? json_integer((json_int_t)private) : json_null(),
			 "resident", counter(c, STATUS_VM_RSS),
			 "swap", counter(c, STATUS_VM_SWAP),
			 "peak_resident", counter(c, STATUS_VM_HWM),
			 "rss_anon", counter(c, STATUS_RSS_ANON),
			 "rss_file", counter(c, STATUS_RSS_FILE),
			 "rss_shmem", counter(c, STATUS_RSS_SHMEM),
			 "locked", counter(c, STATUS_VM_LCK),
			 "hugetlb", counter(c, STATUS_HUGETLB_PAGES));
}

/* The counters of CENSUS_COUNTERS in their order, under their keys: a
 * class's (per_class ones, after its key and label) or the totals'; null
 * where unknown. */
static json_t *counters_of(json_t *o, const struct census_totals *t, bool per_class, uint32_t unknown)
{
	for (int i = 0; o && i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		if (per_class && !k->per_class)
			continue;
		json_t *v = unknown & (1u << i) ? json_null() : json_integer((json_int_t)census_counter_value(t, i));
		if (json_object_set_new(o, per_class ? k->class_key : k->total_key, v) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *totals_json(const struct census *c)
{
	return counters_of(json_object(), &c->totals, false, c->unknown_totals);
}

/* A class: its key and label, its counters, and how a heap walk knew its
 * in_use and free (null where none did). */
static json_t *class_json(const struct census *c, enum class_id k)
{
	json_t *o = counters_of(json_pack("{s:s, s:s}", "key", class_key(k), "label", class_label(k)),
				&c->classes[k], true, c->unknown_classes[k]);
	if (o && json_object_set_new(o, "how", c->how[k] ? text_json_string(c->how[k]) : json_null()) < 0)
		o = (json_decref(o), NULL);
	return o;
}

/* "evidence": what reading the process's memory did for this census. */
static json_t *evidence_json(const struct census *c)
{
	return json_pack("{s:b, s:o, s:o, s:o, s:o}", "taken", c->evidence.taken,
			 "why_not", c->evidence.why_not[0] ? text_json_string(c->evidence.why_not) : json_null(),
			 "regions", json_field_int_or_null(c->evidence.regions),
			 "confirmed", json_field_int_or_null(c->evidence.confirmed),
			 "split", json_field_int_or_null(c->evidence.split));
}

static json_t *region_json(const struct census_region *r)
{
	/* inode numbers are unsigned 64-bit; JSON readers keep 2^63 exactly at most */
	json_t *inode = r->inode <= INT64_MAX ? json_integer((json_int_t)r->inode) : json_null();
	return json_pack("{s:o, s:o, s:s, s:s, s:o, s:o, s:o, s:b, s:b, s:I, s:I, s:I, s:o, s:o}",
			 "start", address(r->start), "end", address(r->end), "perms", r->perms,
			 "class", class_key(r->cls), "rule", text_json_string(r->rule), "why", text_json_string(r->why),
			 "evidence", text_json_string(r->evidence), "confirmed", r->confirmed, "part", r->part,
			 "private", (json_int_t)r->private, "resident", (json_int_t)r->resident,
			 "size", (json_int_t)r->size, "path", text_json_string(r->path), "inode", inode);
}

static json_t *file_json(const struct census_file *f)
{
	return json_pack("{s:o, s:s, s:I, s:I, s:I, s:I}",
			 "path", text_json_string(f->path), "kind", file_kind_name(f->kind),
			 "private", (json_int_t)f->private, "resident", (json_int_t)f->resident,
			 "size", (json_int_t)f->size, "regions", (json_int_t)f->regions);
}

/* A byte count, or null when unknown. */
static json_t *bytes_or_null(uint64_t v)
{
	return v == GPU_BYTES_UNKNOWN || v > INT64_MAX ? json_null() : json_integer((json_int_t)v);
}

/* "gpu": null when not taken; else NVML's state and the devices this
 * process holds memory on. */
static json_t *gpu_json(const struct census_gpu *g)
{
	if (!g->taken)
		return json_null();
	_cleanup_(json_decrefp) json_t *devices = json_array();
	if (!devices)
		return NULL;
	for (size_t i = 0; i < g->n_uses; i++) {
		const struct census_gpu_use *u = &g->uses[i];
		if (json_array_append_new(devices, json_pack("{s:I, s:o, s:o, s:o, s:o, s:b}", "index", (json_int_t)u->index,
							     "uuid", text_json_string(u->uuid), "name",
							     text_json_string(u->name), "used", bytes_or_null(u->used),
							     "total", u->total ? bytes_or_null(u->total) : json_null(),
							     "graphics", u->graphics)) < 0)
			return NULL;
	}
	return json_pack("{s:s, s:o, s:o, s:b, s:O}", "state", gpu_state_name(g->state), "message",
			 g->message[0] ? text_json_string(g->message) : json_null(), "driver_version",
			 g->driver_version > 0 ? json_integer(g->driver_version) : json_null(), "nvidia_mapped",
			 g->nvidia_mapped, "devices", devices);
}

/* A Windows census's own figures: null where unknown. */
static json_t *windows_json(const struct census *c)
{
	const struct census_windows *w = &c->windows;
	return json_pack("{s:I, s:I, s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "reserved", (json_int_t)w->reserved,
			 "committed", (json_int_t)w->committed, "reservations", (json_int_t)w->reservations,
			 "residency", census_residency_name(w->residency), "estimated", (json_int_t)w->estimated,
			 "residency_why", text_json_string(w->residency_why[0] ? w->residency_why : NULL),
			 "private_usage", json_field_int_or_null(w->private_usage),
			 "working_set", json_field_int_or_null(w->working_set),
			 "peak_working_set", json_field_int_or_null(w->peak_working_set),
			 "pagefile_usage", json_field_int_or_null(w->pagefile_usage),
			 "owner", text_json_string(w->owner[0] ? w->owner : NULL));
}

static json_t *regions_array(const struct census_region *r, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, region_json(&r[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *census_to_json(const struct census *c, bool with_regions)
{
	_cleanup_(json_decrefp) json_t *classes = json_array(), *files = json_array();
	if (!classes || !files)
		return NULL;

	/* classes in the tables' order (census_class_order) */
	enum class_id order[_CLASS_MAX];
	size_t n = census_class_order(c, order);
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(classes, class_json(c, order[i])) < 0)
			return NULL;
	for (size_t i = 0; i < c->n_files; i++)
		if (json_array_append_new(files, file_json(&c->files[i])) < 0)
			return NULL;

	json_t *root = json_pack(
		"{s:s, s:i, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o}, s:o, s:o, s:O, s:o, s:O, s:o, s:o, "
		"s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}}",
		"format", CENSUS_JSON_FORMAT, "version", CENSUS_JSON_VERSION,
		"taken_at", json_field_int_or_null(c->taken_at_ms), "source", text_json_string(c->source),
		"process", "pid", json_field_int_or_null(c->pid), "start_time", json_field_int_or_null(c->start_time),
		"boot_id", text_json_string(c->boot_id), "comm", text_json_string(c->comm),
		"cmdline", text_json_string(c->cmdline), "exe", text_json_string(c->exe),
		"uid", json_field_int_or_null(c->uid),
		"counters", counters_json(c),
		"totals", totals_json(c),
		"classes", classes,
		"largest", regions_array(c->largest, c->n_largest),
		"files", files,
		"gpu", gpu_json(&c->gpu),
		"evidence", evidence_json(c),
		"cost", "wall_us", json_field_int_or_null(c->wall_us), "cpu_us", json_field_int_or_null(c->cpu_us),
		"bytes_read", json_field_int_or_null(c->bytes_read), "threads", json_field_int_or_null(c->threads_seen),
		"stack_pointers", json_field_int_or_null(c->stack_pointers),
		"evidence_reads", json_field_int_or_null(c->evidence.reads),
		"evidence_bytes", json_field_int_or_null(c->evidence.bytes),
		"evidence_batches", json_field_int_or_null(c->evidence.calls),
		"pages_looked_up", json_field_int_or_null(c->evidence.pages));
	if (root && (json_object_set_new(json_object_get(root, "process"), "platform",
					 json_string(census_platform_name(c->platform))) < 0 ||
		     (c->platform == PLATFORM_WINDOWS && json_object_set_new(root, "windows", windows_json(c)) < 0))) {
		json_decref(root);
		return NULL;
	}
	if (root && c->light && json_object_set_new(root, "light", json_true()) < 0) {
		json_decref(root);
		return NULL;
	}
	if (root && with_regions && c->regions) {
		json_t *all = regions_array(c->regions, c->n_regions);
		if (!all || json_object_set_new(root, "regions", all) < 0) {
			json_decref(root);
			return NULL;
		}
	}
	return root;
}
