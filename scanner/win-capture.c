/* See win-capture.h.  Untrusted input: a capture may come from another
 * machine, so every field is checked for its type and range, and a
 * mistake is reported with the region's index and the field's name. */
#include "win-capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json-field.h"
#include "limits.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"

DEFINE_CLEANUP(struct win_capture *, win_capture_free)

struct win_capture *win_capture_free(struct win_capture *c)
{
	if (!c)
		return NULL;
	free(c->regions);
	strpool_free(c->strings);
	free(c);
	return NULL;
}

static int bad(struct error *err, const char *fmt, ...) _printf_(2, 3);
static int bad(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_setv(err, -EBADMSG, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* An unsigned integer, or an address "0x..." (JSON integers are signed
 * 64-bit: the upper half of the address space needs the string form). */
static int get_u64(const json_t *o, const char *key, bool optional, uint64_t *ret)
{
	const json_t *v = json_object_get(o, key);
	if (!v && optional)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*ret = (uint64_t)json_integer_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	if (s && startswith(s, "0x") && s[2] && parse_u64(s + 2, 16, ret) >= 0)
		return 0;
	return -1;
}

static int get_u32(const json_t *o, const char *key, bool optional, uint32_t *ret)
{
	uint64_t v = *ret;
	if (get_u64(o, key, optional, &v) < 0 || v > UINT32_MAX)
		return -1;
	*ret = (uint32_t)v;
	return 0;
}

/* A string interned in pool, NULL when absent or null. */
static int get_str(const json_t *o, const char *key, struct strpool *pool, const char **ret)
{
	const char *s;
	size_t len;
	int r = json_field_string(o, key, &s, &len);

	*ret = NULL;
	if (r <= 0)
		return r < 0 ? -1 : 0;
	*ret = strpool_intern(pool, s, len);
	return *ret ? 0 : -ENOMEM;
}

/* A non-negative integer, or -1 when absent or null. */
static int get_i64(const json_t *o, const char *key, int64_t *ret)
{
	int64_t v = -1;
	if (json_field_int(o, key, 0, INT64_MAX, &v) < 0)
		return -1;
	*ret = v;
	return 0;
}

static int parse_region(const json_t *v, size_t i, struct strpool *pool, struct win_region *r, struct error *err)
{
	const char *mark = NULL;
	int k;

	*r = (struct win_region){ 0 };
	if (!json_is_object(v))
		return bad(err, "regions[%zu]: expected an object", i);
	if (get_u64(v, "base", false, &r->base) < 0)
		return bad(err, "regions[%zu].base: expected an address \"0x...\"", i);
	if (get_u64(v, "size", false, &r->size) < 0)
		return bad(err, "regions[%zu].size: expected a number of bytes", i);
	if (get_u32(v, "state", false, &r->state) < 0 ||
	    (r->state != WIN_MEM_COMMIT && r->state != WIN_MEM_RESERVE && r->state != WIN_MEM_FREE))
		return bad(err, "regions[%zu].state: expected MEM_COMMIT, MEM_RESERVE or MEM_FREE as a number", i);
	if (r->state == WIN_MEM_FREE)
		return 0;
	if (get_u64(v, "allocation_base", false, &r->allocation_base) < 0)
		return bad(err, "regions[%zu].allocation_base: expected an address \"0x...\"", i);
	if (get_u32(v, "protect", true, &r->protect) < 0 ||
	    get_u32(v, "allocation_protect", true, &r->allocation_protect) < 0)
		return bad(err, "regions[%zu]: protect and allocation_protect are PAGE_* numbers", i);
	if (get_u32(v, "type", false, &r->type) < 0 ||
	    (r->type != WIN_MEM_PRIVATE && r->type != WIN_MEM_MAPPED && r->type != WIN_MEM_IMAGE))
		return bad(err, "regions[%zu].type: expected MEM_PRIVATE, MEM_MAPPED or MEM_IMAGE as a number", i);
	if (get_u64(v, "resident", true, &r->resident) < 0 || r->resident > r->size)
		return bad(err, "regions[%zu].resident: expected bytes, at most the region's size", i);
	const json_t *est = json_object_get(v, "estimated");
	if (est && !json_is_boolean(est))
		return bad(err, "regions[%zu].estimated: expected true or false", i);
	r->resident_estimated = est && json_is_true(est);
	if ((k = get_str(v, "path", pool, &r->path)) < 0 || (k = get_str(v, "mark", pool, &mark)) < 0 ||
	    (k = get_str(v, "evidence", pool, &r->evidence)) < 0)
		return k == -ENOMEM ? error_set(err, -ENOMEM, "out of memory") :
				      bad(err, "regions[%zu]: path, mark and evidence are strings", i);
	if (mark) {
		if ((k = win_mark_from_name(mark)) < 0)
			return bad(err, "regions[%zu].mark: unknown mark \"%s\"", i, mark);
		r->mark = (enum win_mark)k;
	}
	return 0;
}

static int parse_process(const json_t *root, struct win_capture *c, struct error *err)
{
	const json_t *p = json_object_get(root, "process"), *counters = json_object_get(root, "counters");
	struct win_process *wp = &c->process;
	const char *residency = NULL;
	int64_t pid;
	int k;

	*wp = (struct win_process){ .pid = -1, .creation_time = -1, .private_usage = -1, .working_set = -1,
				    .peak_working_set = -1, .pagefile_usage = -1 };
	if (!json_is_object(p))
		return bad(err, "process: expected an object");
	if (get_i64(p, "pid", &pid) < 0 || pid > INT32_MAX || get_i64(p, "creation_time", &wp->creation_time) < 0)
		return bad(err, "process: pid and creation_time are non-negative numbers");
	wp->pid = (int)pid;
	if ((k = get_str(p, "image", c->strings, &wp->image)) < 0 || (k = get_str(p, "cmdline", c->strings, &wp->cmdline)) < 0 ||
	    (k = get_str(p, "owner", c->strings, &wp->owner)) < 0 ||
	    (k = get_str(root, "residency", c->strings, &residency)) < 0 ||
	    (k = get_str(root, "residency_why", c->strings, &wp->residency_why)) < 0)
		return k == -ENOMEM ? error_set(err, -ENOMEM, "out of memory") :
				      bad(err, "process: image, cmdline, owner, residency are strings");
	k = residency ? census_residency_from_name(residency) : RESIDENCY_UNKNOWN;
	if (k < 0)
		return bad(err, "residency: \"%s\" is not exact, estimated or unknown", residency);
	wp->residency = (enum census_residency)k;
	if (counters && !json_is_null(counters) &&
	    (!json_is_object(counters) || get_i64(counters, "private_usage", &wp->private_usage) < 0 ||
	     get_i64(counters, "working_set", &wp->working_set) < 0 ||
	     get_i64(counters, "peak_working_set", &wp->peak_working_set) < 0 ||
	     get_i64(counters, "pagefile_usage", &wp->pagefile_usage) < 0))
		return bad(err, "counters: expected an object of byte counts");
	return 0;
}

int win_capture_parse(const char *text, size_t len, struct win_capture **ret, struct error *err)
{
	_cleanup_(win_capture_freep) struct win_capture *c = calloc(1, sizeof(*c));
	json_error_t jerr;
	json_t *root;
	int r = 0;

	if (!c || !(c->strings = strpool_new()))
		return error_set(err, -ENOMEM, "out of memory");
	if (!(root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
		return bad(err, "not JSON: %s (line %d)", jerr.text, jerr.line);
	const char *format = json_string_value(json_object_get(root, "format"));
	const json_t *version = json_object_get(root, "version"), *regions = json_object_get(root, "regions");
	if (!format || !streq(format, WIN_CAPTURE_FORMAT))
		r = bad(err, "not a Windows region list (no \"format\": \"%s\")", WIN_CAPTURE_FORMAT);
	else if (!json_is_integer(version) || json_integer_value(version) < 1)
		r = bad(err, "version: expected a number");
	else if (json_integer_value(version) > WIN_CAPTURE_VERSION)
		r = bad(err, "region list version %" PRId64 " is newer than this ramwatch (%d): upgrade ramwatch",
			(int64_t)json_integer_value(version), WIN_CAPTURE_VERSION);
	else if (!json_is_array(regions))
		r = bad(err, "regions: expected an array");
	else if (json_array_size(regions) > RW_REGIONS_MAX)
		r = error_set(err, -E2BIG, "%zu regions: more than the %u a census takes", json_array_size(regions),
			      RW_REGIONS_MAX);
	else if ((r = parse_process(root, c, err)) >= 0) {
		c->n = json_array_size(regions);
		if (!(c->regions = calloc(c->n ? c->n : 1, sizeof(*c->regions))))
			r = error_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; r >= 0 && i < c->n; i++)
			r = parse_region(json_array_get(regions, i), i, c->strings, &c->regions[i], err);
	}
	json_decref(root);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

static json_t *hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *i64_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

json_t *win_capture_to_json(const struct win_region *regions, size_t n, const struct win_process *p)
{
	json_t *root = json_pack(
		"{s:s, s:i, s:{s:o, s:o, s:o, s:o, s:o}, s:s, s:o, s:{s:o, s:o, s:o, s:o}, s:[]}", "format",
		WIN_CAPTURE_FORMAT, "version", WIN_CAPTURE_VERSION, "process", "pid", i64_or_null(p->pid),
		"creation_time", i64_or_null(p->creation_time), "image", str_or_null(p->image), "cmdline",
		str_or_null(p->cmdline), "owner", str_or_null(p->owner), "residency", census_residency_name(p->residency),
		"residency_why", str_or_null(p->residency_why), "counters", "private_usage", i64_or_null(p->private_usage),
		"working_set", i64_or_null(p->working_set), "peak_working_set", i64_or_null(p->peak_working_set),
		"pagefile_usage", i64_or_null(p->pagefile_usage), "regions");
	json_t *array = root ? json_object_get(root, "regions") : NULL;
	for (size_t i = 0; array && i < n; i++) {
		const struct win_region *r = &regions[i];
		json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I}", "base", hex(r->base), "allocation_base",
				      hex(r->allocation_base), "size", (json_int_t)r->size, "state", (json_int_t)r->state,
				      "protect", (json_int_t)r->protect, "allocation_protect",
				      (json_int_t)r->allocation_protect, "type", (json_int_t)r->type);
		if (!o || (r->path && json_object_set_new(o, "path", json_string(r->path)) < 0) ||
		    (r->state == WIN_MEM_COMMIT && json_object_set_new(o, "resident", json_integer((json_int_t)r->resident)) < 0) ||
		    (r->resident_estimated && json_object_set_new(o, "estimated", json_true()) < 0) ||
		    (r->mark != WIN_MARK_NONE && json_object_set_new(o, "mark", json_string(win_mark_name(r->mark))) < 0) ||
		    (r->evidence && json_object_set_new(o, "evidence", json_string(r->evidence)) < 0) ||
		    json_array_append_new(array, o) < 0) {
			json_decref(o);
			json_decref(root);
			return NULL;
		}
	}
	return root;
}

int win_capture_load_file(const char *path, struct win_capture **ret, struct error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	_cleanup_close_ int fd = open_input(path);
	if (fd < 0)
		return error_set(err, fd, "%s: %s", path, strerror(-fd));
	r = read_full_fd(fd, RW_CENSUS_FILE_MAX, &text, &len);
	if (r == -EFBIG)
		return error_set(err, r, "%s: larger than %u MiB: not a region list", path, RW_CENSUS_FILE_MAX >> 20);
	if (r < 0)
		return error_set(err, r, "%s: %s", path, strerror(-r));
	if ((r = win_capture_parse(text, len, ret, err)) < 0)
		error_prefix(err, "%s: ", path);
	return r;
}
