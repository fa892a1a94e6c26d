/* ramwatch scan on Windows: a census of one process read from outside
 * (scanner/windows/), or of a captured region list, printed and saved as
 * on Linux (census-print.h).  ramwatch summary is the shared one. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census-json.h"
#include "census-print.h"
#include "census.h"
#include "commands.h"
#include "limits.h"
#include "macro.h"
#include "util.h"
#include "win-capture.h"
#include "win-census.h"
#include "winscan.h"

DEFINE_CLEANUP(struct census *, census_free)
DEFINE_CLEANUP(struct win_capture *, win_capture_free)

struct scan_args {
	const char *name, *capture, *out_path, *save_regions;
	enum output out;
	size_t top;
	bool regions, no_residency, no_evidence;
	int pid;
};

static int parse_args(const struct command *self, int argc, char **argv, struct scan_args *a)
{
	int opt, r;

	*a = (struct scan_args){ .out = OUT_TABLE, .top = RW_TOP_DEFAULT };
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'n': a->name = optarg; break;
		case 'c': a->capture = optarg; break;
		case 'j': a->out = OUT_JSON; break;
		case 'm': a->out = OUT_MARKDOWN; break;
		case 'r': a->regions = true; break;
		case 't':
			if ((r = parse_top("scan", optarg, &a->top)) != 0)
				return r;
			break;
		case 'o': a->out_path = optarg; break;
		case 'S': a->save_regions = optarg; break;
		case 'R': a->no_residency = true; break;
		case 'E': a->no_evidence = true; break;
		case 'h': command_help(self, stdout); return 0;
		default:
			return usage_error("scan", "bad option (--smaps, --light, --gpu, --daemon and --proc are the Linux "
					   "build's)");
		}
	}
	if (optind < argc) {
		if (parse_pid(argv[optind], &a->pid) < 0)
			return usage_error("scan", "'%s' is not a process id", argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_error("scan", "unexpected argument '%s'", argv[optind]);
	if ((a->pid > 0) + (a->name != NULL) + (a->capture != NULL) > 1)
		return usage_error("scan", "give one of PID, --name and --capture");
	if (a->capture && (a->save_regions || a->no_residency || a->no_evidence))
		return usage_error("scan", "--save-regions, --no-residency and --no-evidence read a live process");
	return -1;
}

/* Without a PID: the first process matching --name (all without it), most
 * private first, that can be read; says which were passed over. */
static int scan_largest(const struct scan_args *a, const struct winscan_options *so, struct win_capture **ret)
{
	_cleanup_free_ struct winscan_entry *all = NULL;
	struct error err = { 0 };
	size_t n;
	int r = winscan_list(&all, &n), tried = 0;

	if (r < 0)
		return fail("cannot list processes: %s", strerror(-r));
	for (size_t i = 0; i < n; i++) {
		if (a->name && !glob_match(a->name, all[i].name))
			continue;
		tried++;
		if ((r = winscan_process(all[i].pid, so, ret, &err)) == 0)
			return 0;
		if (r != -EACCES && r != -ESRCH && r != -EOPNOTSUPP)
			return fail("%s", err.message);
		fprintf(stderr, "ramwatch: pid %d (%s) passed over: %s\n", all[i].pid, all[i].name, err.message);
	}
	if (a->name)
		return fail(tried ? "no process matching '%s' could be scanned" : "no process matching '%s'", a->name);
	return fail("no process could be scanned");
}

static int save_regions(const struct win_capture *cap, const char *path)
{
	_cleanup_(json_decrefp) json_t *j = win_capture_to_json(cap->regions, cap->n, &cap->process);
	if (!j || json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0)
		return fail("cannot save the region list to %s", path);
	return 0;
}

int cmd_scan(const struct command *self, int argc, char **argv)
{
	_cleanup_(census_freep) struct census *c = NULL;
	_cleanup_(win_capture_freep) struct win_capture *cap = NULL;
	struct error err = { 0 };
	struct scan_args a;
	int r;

	if ((r = parse_args(self, argc, argv, &a)) >= 0)
		return r;
	struct winscan_options so = { .no_residency = a.no_residency, .no_evidence = a.no_evidence };
	uint64_t start_us = now_monotonic_us(), start_cpu_us = now_thread_cpu_us();
	if (a.capture) {
		if (win_capture_load_file(a.capture, &cap, &err) < 0)
			return fail("%s", err.message);
	} else if (a.pid > 0) {
		if (winscan_process(a.pid, &so, &cap, &err) < 0)
			return fail("%s", err.message);
	} else if ((r = scan_largest(&a, &so, &cap)) != 0) {
		return r;
	}
	if (a.save_regions && (r = save_regions(cap, a.save_regions)) != 0)
		return r;
	if (win_census_build(cap->regions, cap->n, &cap->process, a.top, a.regions || a.out_path, &c, &err) < 0)
		return fail("%s", err.message);
	if (!a.capture) {
		c->wall_us = (int64_t)(now_monotonic_us() - start_us);
		c->cpu_us = (int64_t)(now_thread_cpu_us() - start_cpu_us + cap->reader_cpu_us);
		c->taken_at_ms = now_realtime_ms();
		char source[64];
		snprintf(source, sizeof(source), "VirtualQueryEx of process %d", a.pid > 0 ? a.pid : c->pid);
		if (!(c->source = strdup(source)))
			return fail("out of memory");
	} else if (!(c->source = strdup(a.capture))) {
		return fail("out of memory");
	}
	if (a.out_path && (r = save_census(c, a.out_path)) != 0)
		return r;
	return print_census(c, a.out, a.top, a.regions, false);
}
