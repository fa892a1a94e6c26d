/* A census read back from its JSON (census-json.h): every field checked
 * for its type and range, a message naming the one that is not. */
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

DEFINE_CLEANUP(struct census *, census_free)

struct reader {
	struct census *c;
	struct error *err; /* the caller's; may be NULL */
};

static int bad(struct reader *rd, const char *fmt, ...) _printf_(2, 3);

static int bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_setv(rd->err, -EBADMSG, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* A non-negative integer, or null (-1) when nullable. */
static int get_int(struct reader *rd, const json_t *obj, const char *where, const char *key, bool nullable,
		   int64_t *ret)
{
	int64_t v = -1;
	int r = json_field_int(obj, key, 0, INT64_MAX, &v);
	if (r < 0 || (r == 0 && !nullable))
		return bad(rd, "%s.%s: expected a non-negative integer%s", where, key, nullable ? " or null" : "");
	*ret = v;
	return 0;
}

static int get_u64(struct reader *rd, const json_t *obj, const char *where, const char *key, uint64_t *ret)
{
	int64_t v = 0;
	int r = get_int(rd, obj, where, key, false, &v);
	if (r >= 0)
		*ret = (uint64_t)v;
	return r;
}

/* A string interned in the census, or NULL for null/absent when nullable. */
static int get_str(struct reader *rd, const json_t *obj, const char *where, const char *key, bool nullable,
		   const char **ret)
{
	const char *s = NULL;
	size_t len = 0;
	int r = json_field_string(obj, key, &s, &len);
	if (r < 0 || (r == 0 && !nullable))
		return bad(rd, "%s.%s: expected a string%s", where, key, nullable ? " or null" : "");
	if (r == 0) {
		*ret = NULL;
		return 0;
	}
	*ret = strpool_intern(rd->c->strings, s, len);
	return *ret ? 0 : -ENOMEM;
}

static int get_dup(struct reader *rd, const json_t *obj, const char *where, const char *key, char **ret)
{
	const char *s = NULL;
	int r = get_str(rd, obj, where, key, true, &s);
	if (r < 0 || !s)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int get_address(struct reader *rd, const json_t *obj, const char *where, const char *key, uint64_t *ret)
{
	const json_t *v = json_object_get(obj, key);
	const char *s = v ? json_string_value(v) : NULL;
	if (!s || !startswith(s, "0x") || parse_u64(s + 2, 16, ret) < 0)
		return bad(rd, "%s.%s: expected an address \"0x...\"", where, key);
	return 0;
}

static int get_bool(struct reader *rd, const json_t *obj, const char *where, const char *key, bool *ret);

static int read_process(struct reader *rd, const json_t *root)
{
	const json_t *p = json_object_get(root, "process");
	int64_t pid = -1;
	int r;

	if (!json_is_object(p))
		return bad(rd, "process: expected an object");
	if ((r = get_int(rd, p, "process", "pid", true, &pid)) < 0 ||
	    (r = get_int(rd, p, "process", "start_time", true, &rd->c->start_time)) < 0 ||
	    (r = get_int(rd, p, "process", "uid", true, &rd->c->uid)) < 0 ||
	    (r = get_dup(rd, p, "process", "boot_id", &rd->c->boot_id)) < 0 ||
	    (r = get_dup(rd, p, "process", "comm", &rd->c->comm)) < 0 ||
	    (r = get_dup(rd, p, "process", "cmdline", &rd->c->cmdline)) < 0 ||
	    (r = get_dup(rd, p, "process", "exe", &rd->c->exe)) < 0)
		return r;
	if (pid > INT32_MAX)
		return bad(rd, "process.pid: out of range");
	/* a census of a version without platform was taken on Linux */
	const char *platform = NULL;
	if ((r = get_str(rd, p, "process", "platform", true, &platform)) < 0)
		return r;
	int k = platform ? census_platform_from_name(platform) : PLATFORM_LINUX;
	if (k < 0)
		return bad(rd, "process.platform: \"%s\" is neither \"linux\" nor \"windows\"", platform);
	rd->c->platform = (enum census_platform)k;
	rd->c->pid = (int)pid;
	return 0;
}

static int read_counters(struct reader *rd, const json_t *root)
{
	static const struct {
		const char *key;
		enum status_counter k;
	} map[] = {
		{ "resident", STATUS_VM_RSS }, { "swap", STATUS_VM_SWAP }, { "peak_resident", STATUS_VM_HWM },
		{ "rss_anon", STATUS_RSS_ANON }, { "rss_file", STATUS_RSS_FILE }, { "rss_shmem", STATUS_RSS_SHMEM },
		{ "locked", STATUS_VM_LCK }, { "hugetlb", STATUS_HUGETLB_PAGES },
	};
	const json_t *o = json_object_get(root, "counters");
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return bad(rd, "counters: expected an object");
	for (size_t i = 0; i < ELEMENTSOF(map); i++) {
		int64_t v = -1;
		int r = get_int(rd, o, "counters", map[i].key, true, &v);
		if (r < 0)
			return r;
		if (v >= 0) {
			rd->c->status.counter[map[i].k] = (uint64_t)v;
			rd->c->status.present |= 1u << map[i].k;
			rd->c->have_status = true;
		}
	}
	return 0;
}

/* The counters of a class object (per_class) or of the totals, each
 * under its key: a required one a non-negative integer, an optional one
 * (a newer counter) absent or null when the census did not know it, then
 * unknown (its bit set in *unknown); a counter a class object does not
 * carry is unknown per class. */
static int read_counters_of(struct reader *rd, const json_t *o, const char *where, bool per_class,
			    struct census_totals *t, uint32_t *unknown)
{
	if (!json_is_object(o))
		return bad(rd, "%s: expected an object", where);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		const char *key = per_class ? k->class_key : k->total_key;
		int64_t v = -1;
		int r;

		if (per_class && !k->per_class) {
			*unknown |= 1u << i;
			continue;
		}
		r = get_int(rd, o, where, key, k->optional, &v);
		if (r < 0)
			return r;
		if (v < 0)
			*unknown |= 1u << i;
		else
			*census_counter(t, i) = (uint64_t)v;
	}
	return 0;
}

static int read_classes(struct reader *rd, const json_t *root)
{
	const json_t *a = json_object_get(root, "classes");
	size_t i;
	const json_t *v;

	if (!json_is_array(a))
		return bad(rd, "classes: expected an array");
	/* what a class object does not carry is not known of any class; a
	 * heap walk's figures only of the classes the file lists */
	for (int k = 0; k < _CLASS_MAX; k++) {
		rd->c->unknown_classes[k] |= CENSUS_HEAP_COUNTERS;
		for (int j = 0; j < _CENSUS_N_COUNTERS; j++)
			if (!census_counters[j].per_class)
				rd->c->unknown_classes[k] |= 1u << j;
	}
	json_array_foreach(a, i, v)
	{
		char where[32];
		const char *key = NULL;
		snprintf(where, sizeof(where), "classes[%zu]", i);
		if (!json_is_object(v))
			return bad(rd, "%s: expected an object", where);
		int r = get_str(rd, v, where, "key", false, &key);
		if (r < 0)
			return r;
		int k = class_from_saved_key(key);
		if (k < 0)
			return bad(rd, "%s.key: unknown class \"%s\"", where, key);
		rd->c->unknown_classes[k] &= ~(uint32_t)CENSUS_HEAP_COUNTERS;
		if ((r = read_counters_of(rd, v, where, true, &rd->c->classes[k], &rd->c->unknown_classes[k])) < 0 ||
		    (r = get_str(rd, v, where, "how", true, &rd->c->how[k])) < 0)
			return r;
	}
	return 0;
}

static int read_region(struct reader *rd, const json_t *v, const char *where, struct census_region *ret)
{
	struct census_region reg = { 0 };
	const char *cls = NULL, *perms = NULL;
	int r;

	if (!json_is_object(v))
		return bad(rd, "%s: expected an object", where);
	if ((r = get_address(rd, v, where, "start", &reg.start)) < 0 ||
	    (r = get_address(rd, v, where, "end", &reg.end)) < 0 ||
	    (r = get_str(rd, v, where, "class", false, &cls)) < 0 ||
	    (r = get_str(rd, v, where, "rule", true, &reg.rule)) < 0 ||
	    (r = get_str(rd, v, where, "why", true, &reg.why)) < 0 ||
	    (r = get_str(rd, v, where, "perms", true, &perms)) < 0 ||
	    (r = get_u64(rd, v, where, "private", &reg.private)) < 0 ||
	    (r = get_u64(rd, v, where, "resident", &reg.resident)) < 0 ||
	    (r = get_u64(rd, v, where, "size", &reg.size)) < 0 ||
	    (r = get_str(rd, v, where, "path", true, &reg.path)) < 0 ||
	    (r = get_str(rd, v, where, "evidence", true, &reg.evidence)) < 0 ||
	    (r = get_bool(rd, v, where, "confirmed", &reg.confirmed)) < 0 ||
	    (r = get_bool(rd, v, where, "part", &reg.part)) < 0)
		return r;
	int64_t inode = -1;
	if (json_object_get(v, "inode") && (r = get_int(rd, v, where, "inode", true, &inode)) < 0)
		return r;
	reg.inode = inode < 0 ? 0 : (uint64_t)inode;
	int k = class_from_saved_key(cls);
	if (k < 0)
		return bad(rd, "%s.class: unknown class \"%s\"", where, cls);
	reg.cls = (enum class_id)k;
	snprintf(reg.perms, sizeof(reg.perms), "%s", perms ? perms : "????");
	*ret = reg;
	return 0;
}

static int read_region_array(struct reader *rd, const json_t *root, const char *key, bool optional,
			     struct census_region **ret, size_t *ret_n)
{
	const json_t *a = json_object_get(root, key), *v;
	size_t i;

	if (!a && optional)
		return 0;
	if (!json_is_array(a))
		return bad(rd, "%s: expected an array", key);
	*ret = calloc(json_array_size(a) + 1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	json_array_foreach(a, i, v)
	{
		char where[48];
		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		int r = read_region(rd, v, where, &(*ret)[i]);
		if (r < 0)
			return r;
		*ret_n = i + 1;
	}
	return 0;
}

static int read_files(struct reader *rd, const json_t *root)
{
	const json_t *a = json_object_get(root, "files"), *v;
	size_t i;

	if (!json_is_array(a))
		return bad(rd, "files: expected an array");
	rd->c->files = calloc(json_array_size(a) + 1, sizeof(*rd->c->files));
	if (!rd->c->files)
		return -ENOMEM;
	json_array_foreach(a, i, v)
	{
		char where[32];
		struct census_file *f = &rd->c->files[i];
		const char *kind = NULL;
		int r;
		snprintf(where, sizeof(where), "files[%zu]", i);
		if (!json_is_object(v))
			return bad(rd, "%s: expected an object", where);
		if ((r = get_str(rd, v, where, "path", false, &f->path)) < 0 ||
		    (r = get_str(rd, v, where, "kind", false, &kind)) < 0 ||
		    (r = get_u64(rd, v, where, "private", &f->private)) < 0 ||
		    (r = get_u64(rd, v, where, "resident", &f->resident)) < 0)
			return r;
		int k = file_kind_from_name(kind);
		if (k < 0)
			return bad(rd, "%s.kind: unknown kind \"%s\"", where, kind);
		f->kind = (enum file_kind)k;
		int64_t size = -1, regions = -1;
		if ((r = get_int(rd, v, where, "size", true, &size)) < 0 ||
		    (r = get_int(rd, v, where, "regions", true, &regions)) < 0)
			return r;
		f->size = size < 0 ? 0 : (uint64_t)size;
		f->regions = regions < 0 ? 0 : (uint64_t)regions;
		rd->c->n_files = i + 1;
	}
	return 0;
}

static int get_bool(struct reader *rd, const json_t *obj, const char *where, const char *key, bool *ret)
{
	*ret = false;
	if (json_field_bool(obj, key, ret) < 0)
		return bad(rd, "%s.%s: expected true or false", where, key);
	return 0;
}

/* A byte count, or null (GPU_BYTES_UNKNOWN). */
static int get_bytes(struct reader *rd, const json_t *obj, const char *where, const char *key, uint64_t *ret)
{
	int64_t v = -1;
	int r = get_int(rd, obj, where, key, true, &v);
	if (r >= 0)
		*ret = v < 0 ? GPU_BYTES_UNKNOWN : (uint64_t)v;
	return r;
}

/* Copies a string (or "" for null) into a fixed buffer, cut to fit. */
static int get_fixed(struct reader *rd, const json_t *obj, const char *where, const char *key, char *buf,
		     size_t size)
{
	const char *s = NULL;
	int r = get_str(rd, obj, where, key, true, &s);
	if (r >= 0)
		snprintf(buf, size, "%s", s ? s : "");
	return r;
}

static int read_gpu(struct reader *rd, const json_t *root)
{
	const json_t *o = json_object_get(root, "gpu"), *a, *v;
	struct census_gpu *g = &rd->c->gpu;
	const char *state = NULL;
	int64_t version = -1;
	size_t i;
	int r;

	if (!o || json_is_null(o))
		return 0; /* not taken, or a census from before the section */
	if (!json_is_object(o))
		return bad(rd, "gpu: expected an object or null");
	if ((r = get_str(rd, o, "gpu", "state", false, &state)) < 0)
		return r;
	int s = gpu_state_from_name(state);
	if (s < 0)
		return bad(rd, "gpu.state: unknown state \"%s\"", state);
	g->state = (enum gpu_state)s;
	if ((r = get_fixed(rd, o, "gpu", "message", g->message, sizeof(g->message))) < 0 ||
	    (r = get_int(rd, o, "gpu", "driver_version", true, &version)) < 0 ||
	    (r = get_bool(rd, o, "gpu", "nvidia_mapped", &g->nvidia_mapped)) < 0)
		return r;
	if (version > INT32_MAX)
		return bad(rd, "gpu.driver_version: out of range");
	g->driver_version = version < 0 ? 0 : (int)version;
	a = json_object_get(o, "devices");
	if (!json_is_array(a))
		return bad(rd, "gpu.devices: expected an array");
	g->uses = calloc(json_array_size(a) + 1, sizeof(*g->uses));
	if (!g->uses)
		return -ENOMEM;
	json_array_foreach(a, i, v)
	{
		char where[48];
		struct census_gpu_use *u = &g->uses[i];
		int64_t index = -1;
		snprintf(where, sizeof(where), "gpu.devices[%zu]", i);
		if (!json_is_object(v))
			return bad(rd, "%s: expected an object", where);
		if ((r = get_int(rd, v, where, "index", false, &index)) < 0 ||
		    (r = get_fixed(rd, v, where, "uuid", u->uuid, sizeof(u->uuid))) < 0 ||
		    (r = get_fixed(rd, v, where, "name", u->name, sizeof(u->name))) < 0 ||
		    (r = get_bytes(rd, v, where, "used", &u->used)) < 0 ||
		    (r = get_bytes(rd, v, where, "total", &u->total)) < 0 ||
		    (r = get_bool(rd, v, where, "graphics", &u->graphics)) < 0)
			return r;
		if (index > UINT32_MAX)
			return bad(rd, "%s.index: out of range", where);
		u->index = (unsigned)index;
		if (u->total == GPU_BYTES_UNKNOWN)
			u->total = 0;
		g->n_uses = i + 1;
	}
	g->taken = true;
	return 0;
}

static int read_windows(struct reader *rd, const json_t *root)
{
	const json_t *w = json_object_get(root, "windows");
	struct census_windows *cw = &rd->c->windows;
	const char *residency = NULL;
	int r, k;

	if (rd->c->platform != PLATFORM_WINDOWS) {
		if (w && !json_is_null(w))
			return bad(rd, "windows: present in a census of %s", census_platform_name(rd->c->platform));
		return 0;
	}
	if (!json_is_object(w))
		return bad(rd, "windows: expected an object in a census of Windows");
	if ((r = get_u64(rd, w, "windows", "reserved", &cw->reserved)) < 0 ||
	    (r = get_u64(rd, w, "windows", "committed", &cw->committed)) < 0 ||
	    (r = get_u64(rd, w, "windows", "reservations", &cw->reservations)) < 0 ||
	    (r = get_u64(rd, w, "windows", "estimated", &cw->estimated)) < 0 ||
	    (r = get_str(rd, w, "windows", "residency", false, &residency)) < 0 ||
	    (r = get_fixed(rd, w, "windows", "residency_why", cw->residency_why, sizeof(cw->residency_why))) < 0 ||
	    (r = get_fixed(rd, w, "windows", "owner", cw->owner, sizeof(cw->owner))) < 0 ||
	    (r = get_int(rd, w, "windows", "private_usage", true, &cw->private_usage)) < 0 ||
	    (r = get_int(rd, w, "windows", "working_set", true, &cw->working_set)) < 0 ||
	    (r = get_int(rd, w, "windows", "peak_working_set", true, &cw->peak_working_set)) < 0 ||
	    (r = get_int(rd, w, "windows", "pagefile_usage", true, &cw->pagefile_usage)) < 0)
		return r;
	if ((k = census_residency_from_name(residency)) < 0)
		return bad(rd, "windows.residency: \"%s\" is not exact, estimated or unknown", residency);
	cw->residency = (enum census_residency)k;
	if (cw->committed > cw->reserved)
		return bad(rd, "windows: committed is more than reserved");
	return 0;
}

int census_from_json(const json_t *root, struct census **ret, struct error *err)
{
	_cleanup_(census_freep) struct census *c = census_new();
	struct reader rd = { .c = c, .err = err };
	const char *format = NULL, *source = NULL;
	int64_t version = 0;
	const json_t *cost;
	int r;

	if (!c)
		return -ENOMEM;
	if (!json_is_object(root))
		return bad(&rd, "not a JSON object");
	if ((r = get_str(&rd, root, "census", "format", false, &format)) < 0)
		return bad(&rd, "not a ramwatch census (no \"format\": \"%s\")", CENSUS_JSON_FORMAT);
	if (!streq(format, CENSUS_JSON_FORMAT))
		return bad(&rd, "not a ramwatch census (format \"%s\")", format);
	if ((r = get_int(&rd, root, "census", "version", false, &version)) < 0)
		return r;
	if (version > CENSUS_JSON_VERSION)
		return bad(&rd, "census format version %" PRId64 " is newer than this ramwatch (%d): upgrade ramwatch",
			   version, CENSUS_JSON_VERSION);

	if ((r = get_int(&rd, root, "census", "taken_at", true, &c->taken_at_ms)) < 0 ||
	    (r = get_str(&rd, root, "census", "source", true, &source)) < 0 || (r = read_process(&rd, root)) < 0 ||
	    (r = read_counters(&rd, root)) < 0 ||
	    (r = read_counters_of(&rd, json_object_get(root, "totals"), "totals", false, &c->totals, &c->unknown_totals)) < 0 ||
	    (r = read_classes(&rd, root)) < 0 ||
	    (r = read_region_array(&rd, root, "largest", false, &c->largest, &c->n_largest)) < 0 ||
	    (r = read_region_array(&rd, root, "regions", true, &c->regions, &c->n_regions)) < 0 ||
	    (r = read_files(&rd, root)) < 0 || (r = read_gpu(&rd, root)) < 0 || (r = read_windows(&rd, root)) < 0)
		return r;
	const json_t *light = json_object_get(root, "light");
	if (light && !json_is_boolean(light))
		return bad(&rd, "census: \"light\" is not true or false");
	c->light = light && json_is_true(light);
	if (source && !(c->source = strdup(source)))
		return -ENOMEM;

	cost = json_object_get(root, "cost");
	if (cost && json_is_object(cost)) {
		if ((r = get_int(&rd, cost, "cost", "wall_us", true, &c->wall_us)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "cpu_us", true, &c->cpu_us)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "bytes_read", true, &c->bytes_read)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "threads", true, &c->threads_seen)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "stack_pointers", true, &c->stack_pointers)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "evidence_reads", true, &c->evidence.reads)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "evidence_bytes", true, &c->evidence.bytes)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "evidence_batches", true, &c->evidence.calls)) < 0 ||
		    (r = get_int(&rd, cost, "cost", "pages_looked_up", true, &c->evidence.pages)) < 0)
			return r;
	}
	const json_t *ev = json_object_get(root, "evidence");
	if (ev && !json_is_null(ev)) {
		if (!json_is_object(ev))
			return bad(&rd, "evidence: expected an object");
		if ((r = get_bool(&rd, ev, "evidence", "taken", &c->evidence.taken)) < 0 ||
		    (r = get_fixed(&rd, ev, "evidence", "why_not", c->evidence.why_not, sizeof(c->evidence.why_not))) < 0 ||
		    (r = get_int(&rd, ev, "evidence", "regions", true, &c->evidence.regions)) < 0 ||
		    (r = get_int(&rd, ev, "evidence", "confirmed", true, &c->evidence.confirmed)) < 0 ||
		    (r = get_int(&rd, ev, "evidence", "split", true, &c->evidence.split)) < 0)
			return r;
	}
	*ret = TAKE_PTR(c);
	return 0;
}

/* Counts the values of JSON text, as arrays and objects opened and commas
 * outside strings (each value past a container's first follows a comma),
 * stopping past max.  Returns the count, or max + 1 for more; the text is
 * not checked (jansson does that next). */
static size_t count_values(const char *text, size_t len, size_t max)
{
	size_t n = 0;
	bool in_string = false;

	for (size_t i = 0; i < len && n <= max; i++) {
		char ch = text[i];
		if (in_string) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_string = false;
		} else if (ch == '"')
			in_string = true;
		else if (ch == '[' || ch == '{' || ch == ',')
			n++;
	}
	return n;
}

/* The key of the member whose value jansson refused (a number past 64
 * bits), found backwards from where it stopped, just past the value:
 * "private": 18446744073709551616.  Returns false, buf untouched, when the
 * value is not a member's (an array's element) or the key is long. */
static bool key_before(const char *text, size_t pos, char *buf, size_t size)
{
	size_t i = pos, end;

	while (i > 0 && strchr("0123456789+-.eE", text[i - 1]))
		i--;
	while (i > 0 && strchr(" \t\r\n", text[i - 1]))
		i--;
	if (i == 0 || text[--i] != ':')
		return false;
	while (i > 0 && strchr(" \t\r\n", text[i - 1]))
		i--;
	if (i == 0 || text[--i] != '"')
		return false;
	end = i;
	while (i > 0 && text[i - 1] != '"' && text[i - 1] != '\\' && end - i < size - 1)
		i--;
	if (i == 0 || text[i - 1] != '"')
		return false;
	snprintf(buf, size, "%.*s", (int)(end - i), text + i);
	return true;
}

int census_load_file(const char *path, struct census **ret, struct error *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_(json_decrefp) json_t *root = NULL;
	json_error_t jerr;
	size_t len;
	int r;

	_cleanup_close_ int fd = open_input(path);
	if (fd < 0)
		return error_set(err, fd, "%s", strerror(-fd));
	r = read_full_fd(fd, RW_CENSUS_FILE_MAX, &text, &len);
	if (r == -EFBIG)
		return error_set(err, r, "larger than %u MiB: not a census file", RW_CENSUS_FILE_MAX >> 20);
	if (r < 0)
		return error_set(err, r, "%s", strerror(-r));
	if (len == 0)
		return error_set(err, -EBADMSG, "empty: not a census file");
	if (count_values(text, len, RW_CENSUS_VALUES_MAX) > RW_CENSUS_VALUES_MAX)
		return error_set(err, -E2BIG, "more than %u JSON values: not a census file", RW_CENSUS_VALUES_MAX);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		char key[64];
		size_t pos = jerr.position > 0 && (size_t)jerr.position <= len ? (size_t)jerr.position : 0;
		if (strstr(jerr.text, "too big") && key_before(text, pos, key, sizeof(key)))
			return error_set(err, -EBADMSG, "\"%s\": a number out of range (line %d, column %d, byte %d: %s)",
					 key, jerr.line, jerr.column, jerr.position, jerr.text);
		return error_set(err, -EBADMSG, "not valid JSON (line %d, column %d, byte %d: %s)", jerr.line,
				 jerr.column, jerr.position, jerr.text);
	}
	return census_from_json(root, ret, err);
}
