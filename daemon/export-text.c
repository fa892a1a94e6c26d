/* Building the exposition (daemon/export-text.h): groups, label escaping,
 * the families in a fixed order.  Runs every StoreInterval over at most
 * MaxProcesses processes, and for each "metrics" request. */
#include "export-text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-unit.h"
#include "limits.h"
#include "macro.h"
#include "text.h"
#include "util.h"


void export_classes_from_census(const struct census *c, struct export_classes *ret)
{
	*ret = (struct export_classes){ .ok = true, .light = c->light };
	for (int k = 0; k < _CLASS_MAX; k++) {
		if (c->classes[k].count > 0)
			ret->present |= 1u << k;
#define COPY_(name, class_key, total_key, per_class, light_class, light_total, optional, history, metric, ...) \
	CENSUS_IF_##metric(ret->name[k] = c->classes[k].name;)
		CENSUS_COUNTERS(COPY_)
#undef COPY_
		const uint32_t bits = CENSUS_COUNTER_BIT(in_use) | CENSUS_COUNTER_BIT(free_kept);
		if (c->classes[k].count > 0 && !c->light && !(c->unknown_classes[k] & bits)) {
			ret->heap |= 1u << k;
			ret->in_use[k] = c->classes[k].in_use;
			ret->free_kept[k] = c->classes[k].free_kept;
			ret->returnable[k] =
				c->unknown_classes[k] & CENSUS_COUNTER_BIT(returnable) ? 0 : c->classes[k].returnable;
		}
	}
}

void export_classes_keep_heap(const struct export_classes *before, struct export_classes *now)
{
	if (!before->ok || now->light)
		return;
	for (int k = 0; k < _CLASS_MAX; k++) {
		uint32_t bit = 1u << k;
		if (!(now->present & bit) || (now->heap & bit) || !(before->heap & bit))
			continue;
		now->heap |= bit;
		now->in_use[k] = before->in_use[k];
		now->free_kept[k] = before->free_kept[k];
		now->returnable[k] = before->returnable[k];
	}
}

/* Copies s[0, n) into buf as valid UTF-8 of at most RW_EXPORT_GROUP_MAX
 * bytes; "-" for nothing. */
static char *normalise(const char *s, size_t n, char *buf)
{
	if (text_clean_into(buf, RW_EXPORT_GROUP_MAX, s, n) == 0)
		strcpy(buf, "-");
	return buf;
}

char *export_group_key(const struct export_process *p, enum export_group_by by, char *buf)
{
	char uid[24];
	const char *unit;
	size_t n;

	switch (by) {
	case EXPORT_GROUP_UNIT:
		n = cgroup_unit_of_path(p->cgroup, &unit);
		if (n > 0)
			return normalise(unit, n, buf);
		return normalise(p->cgroup ? p->cgroup : "", p->cgroup ? strlen(p->cgroup) : 0, buf);
	case EXPORT_GROUP_USER:
		if (p->user && p->user[0])
			return normalise(p->user, strlen(p->user), buf);
		if (p->uid < 0)
			return normalise("", 0, buf);
		snprintf(uid, sizeof(uid), "%" PRId64, p->uid);
		return normalise(uid, strlen(uid), buf);
	case EXPORT_GROUP_COMM:
	default:
		return normalise(p->comm ? p->comm : "", p->comm ? strlen(p->comm) : 0, buf);
	}
}

/* ------------------------------------------------------------ groups */

/* The GPU memory of a group on one device. */
struct group_gpu {
	bool on;       /* some process of the group has a figure there */
	uint64_t used; /* bytes */
};

struct group {
	char *key;
	uint64_t processes, light;
	SAMPLE_FIGURES(SAMPLE_FIGURE_MEMBER) /* summed over the group's processes */
	uint64_t peak_private;
	uint32_t present;
	struct export_classes classes; /* the sums of the processes' (ok, light and present unused) */
	/* per class, the processes whose last census found it, and those of
	 * them whose figures in use and free are known */
	uint32_t with_class[_CLASS_MAX], with_heap[_CLASS_MAX];
	struct group_gpu *gpu; /* per device of the snapshot; NULL without one */
};

struct keyed {
	char *key;
	const struct export_process *p;
};

static int compare_keyed(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

static void group_add(struct group *g, const struct export_process *p, size_t n_devices)
{
	const struct export_classes *c = p->classes;

	for (size_t i = 0; g->gpu && i < p->n_gpu; i++) {
		const struct gpu_use *u = &p->gpu[i];
		/* a figure NVML could not give is no sample, not a 0 */
		if (u->device >= n_devices || u->used == GPU_BYTES_UNKNOWN)
			continue;
		g->gpu[u->device].on = true;
		g->gpu[u->device].used += u->used;
	}
	g->processes++;
#define ADD_(name, ...) g->name += p->name;
	SAMPLE_FIGURES(ADD_)
#undef ADD_
	if (p->peak_private > g->peak_private)
		g->peak_private = p->peak_private;
	if (!c || !c->ok)
		return;
	/* a light census knows each class's size, not its memory */
	if (c->light) {
		g->light++;
		return;
	}
	g->present |= c->present;
	for (int k = 0; k < _CLASS_MAX; k++) {
		if (!(c->present & (1u << k)))
			continue;
		g->with_class[k]++;
		if (c->heap & (1u << k)) {
			g->with_heap[k]++;
			g->classes.in_use[k] += c->in_use[k];
			g->classes.free_kept[k] += c->free_kept[k];
			g->classes.returnable[k] += c->returnable[k];
		}
	}
	for (int k = 0; k < _CLASS_MAX; k++) {
#define ADD_(name, class_key, total_key, per_class, light_class, light_total, optional, history, metric, ...) \
	CENSUS_IF_##metric(g->classes.name[k] += c->name[k];)
		CENSUS_COUNTERS(ADD_)
#undef ADD_
	}
}

static void groups_free(struct group *g, size_t ng)
{
	for (size_t i = 0; g && i < ng; i++) {
		free(g[i].key);
		free(g[i].gpu);
	}
	free(g);
}

/* The groups of the n processes, sorted by key, each with room for the GPU
 * memory on n_devices devices (0: none).  Returns their count, or -ENOMEM. */
static int make_groups(const struct export_process *p, size_t n, enum export_group_by by, size_t n_devices,
		       struct group **ret)
{
	struct keyed *k = calloc(n + 1, sizeof(*k));
	struct group *g = calloc(n + 1, sizeof(*g));
	size_t ng = 0;
	char buf[RW_EXPORT_GROUP_MAX + 1];

	if (!k || !g)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		k[i].p = &p[i];
		k[i].key = strdup(export_group_key(&p[i], by, buf));
		if (!k[i].key)
			goto oom;
	}
	qsort_safe(k, n, sizeof(*k), compare_keyed);
	for (size_t i = 0; i < n; i++) {
		if (ng == 0 || !streq(g[ng - 1].key, k[i].key)) {
			g[ng++].key = TAKE_PTR(k[i].key);
			if (n_devices > 0 && !(g[ng - 1].gpu = calloc(n_devices, sizeof(*g->gpu)))) {
				groups_free(g, ng);
				g = NULL;
				goto oom;
			}
		}
		group_add(&g[ng - 1], k[i].p, n_devices);
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].key);
	free(k);
	*ret = g;
	return (int)ng;

oom:
	for (size_t i = 0; k && i < n; i++)
		free(k[i].key);
	free(k);
	free(g);
	return -ENOMEM;
}

/* ------------------------------------------------------------ text */

/* A label value: backslash, double quote and line feed escaped, as the
 * exposition format asks; the key is valid UTF-8 already. */
static void put_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{group="G"<rest>} value */
static void group_sample(FILE *f, const char *name, const struct group *g, const char *rest, uint64_t v)
{
	fprintf(f, "%s{group=\"", name);
	put_value(f, g->key);
	fprintf(f, "\"%s} %" PRIu64 "\n", rest, v);
}

static void put_groups(FILE *f, const struct group *g, size_t ng)
{
	char rest[96];

	family(f, "ramwatch_memory_bytes", "gauge",
	       "Memory of the group's processes in each class, at each process's last full census.");
	for (size_t i = 0; i < ng; i++)
		for (int k = 0; k < _CLASS_MAX; k++) {
			if (!(g[i].present & (1u << k)))
				continue;
			/* each counter of a class the metrics give (census-counters.h) */
#define PUT_(name, ckey, tkey, per_class, light_class, light_total, optional, history, metric, ...)         \
	CENSUS_IF_##metric(snprintf(rest, sizeof(rest), ",class=\"%s\",kind=\"" #name "\"", class_key(k));           \
			   group_sample(f, "ramwatch_memory_bytes", &g[i], rest, g[i].classes.name[k]);)
			CENSUS_COUNTERS(PUT_)
#undef PUT_
		}

	/* only where every process of the group with the class knows them:
	 * the metrics have no null, and a sum over some of them would read as
	 * the group's */
	family(f, "ramwatch_allocator_bytes", "gauge",
	       "Of each class's memory, what its allocator counts in use by the program, free (kept for later) and "
	       "returnable (of free, whole pages it could give back), summed over the group's processes at the last "
	       "census of each that read them; only the classes of which every process's census read them.");
	for (size_t i = 0; i < ng; i++)
		for (int k = 0; k < _CLASS_MAX; k++) {
			if (g[i].with_class[k] == 0 || g[i].with_heap[k] != g[i].with_class[k])
				continue;
			const uint64_t v[] = { g[i].classes.in_use[k], g[i].classes.free_kept[k], g[i].classes.returnable[k] };
			static const char *const kinds[] = { "in_use", "free", "returnable" };
			for (size_t j = 0; j < ELEMENTSOF(kinds); j++) {
				snprintf(rest, sizeof(rest), ",class=\"%s\",kind=\"%s\"", class_key(k), kinds[j]);
				group_sample(f, "ramwatch_allocator_bytes", &g[i], rest, v[j]);
			}
		}

	family(f, "ramwatch_process_memory_bytes", "gauge",
	       "Memory of the group's processes at their last sample of the fast tier.");
	for (size_t i = 0; i < ng; i++) {
		/* each figure of the fast tier the metrics give (sample-row.h) */
#define VALUE_(name, ...) g[i].name,
		const uint64_t v[_SAMPLE_N_FIGURES] = { SAMPLE_FIGURES(VALUE_) };
#undef VALUE_
		for (size_t k = 0; k < _SAMPLE_N_FIGURES; k++) {
			if (!sample_figures[k].metric)
				continue;
			snprintf(rest, sizeof(rest), ",kind=\"%s\"", sample_figures[k].name);
			group_sample(f, "ramwatch_process_memory_bytes", &g[i], rest, v[k]);
		}
	}

	family(f, "ramwatch_peak_private_bytes", "gauge", "The largest peak private memory of the group's processes.");
	for (size_t i = 0; i < ng; i++)
		group_sample(f, "ramwatch_peak_private_bytes", &g[i], "", g[i].peak_private);

	family(f, "ramwatch_processes", "gauge", "Processes of the group that ramwatchd watches.");
	for (size_t i = 0; i < ng; i++)
		group_sample(f, "ramwatch_processes", &g[i], "", g[i].processes);

	family(f, "ramwatch_light_census_processes", "gauge",
	       "Processes of the group whose last census was light, so not in ramwatch_memory_bytes.");
	for (size_t i = 0; i < ng; i++)
		group_sample(f, "ramwatch_light_census_processes", &g[i], "", g[i].light);
}

/* A label value that is not a group key: valid UTF-8, escaped. */
static void put_text(FILE *f, const char *s)
{
	char buf[RW_EXPORT_GROUP_MAX + 1];
	put_value(f, normalise(s, strlen(s), buf));
}

static void put_gpu_groups(FILE *f, const struct group *g, size_t ng, const struct gpu_snapshot *s)
{
	family(f, "ramwatch_gpu_memory_bytes", "gauge",
	       "GPU memory (VRAM) the group's processes hold on each device, at the last GPU snapshot.");
	for (size_t i = 0; i < ng; i++)
		for (size_t k = 0; k < s->n_devices; k++) {
			if (!g[i].gpu[k].on || !s->devices[k].uuid[0])
				continue;
			fputs("ramwatch_gpu_memory_bytes{group=\"", f);
			put_value(f, g[i].key);
			fputs("\",device=\"", f);
			put_text(f, s->devices[k].uuid);
			fprintf(f, "\"} %" PRIu64 "\n", g[i].gpu[k].used);
		}
}

/* name{device="UUID"<rest>} */
static void device_sample(FILE *f, const char *name, const struct gpu_device *d, const char *rest)
{
	fprintf(f, "%s{device=\"", name);
	put_text(f, d->uuid);
	fprintf(f, "\"%s} ", rest);
}

static void put_gpu_devices(FILE *f, const struct gpu_snapshot *s)
{
	family(f, "ramwatch_gpu_device_memory_bytes", "gauge",
	       "Memory of each GPU: its total, and what every process together uses, at the last GPU snapshot.");
	for (size_t k = 0; k < s->n_devices; k++) {
		const struct gpu_device *d = &s->devices[k];
		if (!d->uuid[0] || !d->present)
			continue;
		if (d->total != GPU_BYTES_UNKNOWN) {
			device_sample(f, "ramwatch_gpu_device_memory_bytes", d, ",kind=\"total\"");
			fprintf(f, "%" PRIu64 "\n", d->total);
		}
		if (d->used != GPU_BYTES_UNKNOWN) {
			device_sample(f, "ramwatch_gpu_device_memory_bytes", d, ",kind=\"used\"");
			fprintf(f, "%" PRIu64 "\n", d->used);
		}
	}

	family(f, "ramwatch_gpu_device_up", "gauge", "1 while the GPU answers NVML, 0 while it does not.");
	for (size_t k = 0; k < s->n_devices; k++)
		if (s->devices[k].uuid[0]) {
			device_sample(f, "ramwatch_gpu_device_up", &s->devices[k], "");
			fprintf(f, "%d\n", s->devices[k].present ? 1 : 0);
		}

	family(f, "ramwatch_gpu_device_info", "gauge", "The GPUs by UUID, with NVML's index and name; always 1.");
	for (size_t k = 0; k < s->n_devices; k++) {
		const struct gpu_device *d = &s->devices[k];
		if (!d->uuid[0])
			continue;
		fputs("ramwatch_gpu_device_info{device=\"", f);
		put_text(f, d->uuid);
		fprintf(f, "\",index=\"%u\",name=\"", d->index);
		put_text(f, d->name);
		fputs("\"} 1\n", f);
	}
}

const char *export_oom_kind_name(enum export_oom_kind kind)
{
	static const char *const names[] = {
		[EXPORT_OOM_MEMCG] = "memcg",		  [EXPORT_OOM_GLOBAL] = "none",
		[EXPORT_OOM_CPUSET] = "cpuset",		  [EXPORT_OOM_MEMORY_POLICY] = "memory_policy",
		[EXPORT_OOM_UNKNOWN] = "unknown",	  [EXPORT_OOM_COUNTED] = "counted",
	};
	return (size_t)kind < ELEMENTSOF(names) ? names[kind] : "unknown";
}

/* name{cgroup="PATH"} value */
static void cgroup_sample(FILE *f, const char *name, const struct export_cgroup *g, uint64_t v)
{
	char path[RW_EXPORT_GROUP_MAX + 1];

	/* a path is bytes: valid UTF-8 of a bounded length, as a group's key */
	if (text_clean_into(path, RW_EXPORT_GROUP_MAX, g->path ? g->path : "", g->path ? strlen(g->path) : 0) == 0)
		strcpy(path, "-");
	fprintf(f, "%s{cgroup=\"", name);
	put_value(f, path);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

/* The OOM kills and the memory cgroups: per kind and per group, never per
 * process. */
static void put_oom(FILE *f, const struct export_daemon *d)
{
	if (d->oom_sources) {
		family(f, "ramwatch_oom_kills_total", "counter",
		       "OOM kills since ramwatchd started, by what confined the kernel's choice (counted: only the "
		       "kernel's counter told them).");
		for (int k = 0; k < _EXPORT_OOM_KIND_MAX; k++)
			fprintf(f, "ramwatch_oom_kills_total{constraint=\"%s\"} %" PRIu64 "\n", export_oom_kind_name(k),
				d->oom_kills[k]);
	}
	if (d->n_cgroups == 0)
		return;
	family(f, "ramwatch_cgroup_usage_bytes", "gauge",
	       "Memory the kernel charges each memory cgroup of watched processes, at the last store cycle.");
	for (size_t i = 0; i < d->n_cgroups; i++)
		cgroup_sample(f, "ramwatch_cgroup_usage_bytes", &d->cgroups[i], d->cgroups[i].usage);
	family(f, "ramwatch_cgroup_limit_bytes", "gauge",
	       "The memory limit that applies to each memory cgroup of watched processes (its own or an ancestor's); "
	       "none for a group without one.");
	for (size_t i = 0; i < d->n_cgroups; i++)
		if (d->cgroups[i].have_limit)
			cgroup_sample(f, "ramwatch_cgroup_limit_bytes", &d->cgroups[i], d->cgroups[i].limit);
	family(f, "ramwatch_cgroup_oom_kills_total", "counter",
	       "OOM kills in each memory cgroup of watched processes since the group was made (the kernel's count).");
	for (size_t i = 0; i < d->n_cgroups; i++)
		if (d->cgroups[i].have_oom_kill)
			cgroup_sample(f, "ramwatch_cgroup_oom_kills_total", &d->cgroups[i], d->cgroups[i].oom_kill);
}

static void put_daemon(FILE *f, const struct export_daemon *d)
{
	family(f, "ramwatch_censuses_total", "counter", "Censuses taken, by status.");
	for (int s = 0; s < _CENSUS_STATUS_MAX; s++)
		fprintf(f, "ramwatch_censuses_total{status=\"%s\"} %" PRIu64 "\n", store_census_status_name(s), d->censuses[s]);

	family(f, "ramwatch_census_seconds_total", "counter", "CPU time spent taking censuses.");
	fprintf(f, "ramwatch_census_seconds_total %" PRIu64 ".%06" PRIu64 "\n", d->census_cpu_us / 1000000,
		d->census_cpu_us % 1000000);

	family(f, "ramwatch_deferred_censuses_total", "counter", "Censuses that waited for the census budget.");
	fprintf(f, "ramwatch_deferred_censuses_total %" PRIu64 "\n", d->deferred);

	family(f, "ramwatch_repeated_censuses_total", "counter",
	       "Censuses that found nothing changed since the last full census (of those ok).");
	fprintf(f, "ramwatch_repeated_censuses_total %" PRIu64 "\n", d->repeated);

	family(f, "ramwatch_watched_processes", "gauge", "Processes ramwatchd watches.");
	fprintf(f, "ramwatch_watched_processes %" PRIu64 "\n", d->watched);

	family(f, "ramwatch_sample_round_seconds_max", "gauge",
	       "The longest sample round since the start: every watched process read, and the censuses due.");
	fprintf(f, "ramwatch_sample_round_seconds_max %" PRIu64 ".%06" PRIu64 "\n", d->sample_round_us_max / 1000000,
		d->sample_round_us_max % 1000000);

	family(f, "ramwatch_store_dropped_rows_total", "counter",
	       "Rows dropped because the store could not be written for too long.");
	fprintf(f, "ramwatch_store_dropped_rows_total %" PRIu64 "\n", d->store_dropped_rows);

	family(f, "ramwatch_store_writing", "gauge", "1 while the store is written, 0 while writing it fails.");
	fprintf(f, "ramwatch_store_writing %d\n", d->store_writing ? 1 : 0);

	family(f, "ramwatch_database_corruptions_total", "counter",
	       "Damaged database files found, moved aside and replaced by a new one.");
	fprintf(f, "ramwatch_database_corruptions_total %" PRIu64 "\n", d->database_corruptions);
	if (d->database_corruptions > 0 && d->corruption_moved_to) {
		family(f, "ramwatch_database_corruption_info", "gauge",
		       "Where the last damaged database file was moved to; always 1.");
		fputs("ramwatch_database_corruption_info{moved_to=\"", f);
		put_text(f, d->corruption_moved_to);
		fputs("\"} 1\n", f);
	}

	family(f, "ramwatch_export_errors_total", "counter", "Writes of the metrics textfile that failed.");
	fprintf(f, "ramwatch_export_errors_total %" PRIu64 "\n", d->export_errors);

	family(f, "ramwatch_build_info", "gauge", "The version of ramwatchd; always 1.");
	fputs("ramwatch_build_info{version=\"", f);
	put_value(f, d->version ? d->version : "");
	fputs("\"} 1\n", f);
}

int export_text_build(const struct export_daemon *d, const struct export_process *p, size_t n,
		      enum export_group_by by, char **ret, size_t *ret_len)
{
	struct group *g = NULL;
	char *text = NULL;
	size_t len = 0;
	int ng, r = 0;

	ng = make_groups(p, n, by, d->gpu ? d->gpu->n_devices : 0, &g);
	if (ng < 0)
		return ng;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		r = -ENOMEM;
		goto out;
	}
	put_groups(f, g, (size_t)ng);
	if (d->gpu) {
		put_gpu_groups(f, g, (size_t)ng, d->gpu);
		put_gpu_devices(f, d->gpu);
	}
	put_oom(f, d);
	put_daemon(f, d);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0) {
		free(text);
		goto out;
	}
	*ret = text;
	*ret_len = len;
out:
	groups_free(g, (size_t)ng);
	return r;
}
