/* ramwatch scan and summary: censuses taken here (or by ramwatchd when
 * reading the process needs more rights), saved, printed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "census-json.h"
#include "census.h"
#include "census-print.h"
#include "commands.h"
#include "control-client.h"
#include "fileio.h"
#include "gpu.h"
#include "limits.h"
#include "macro.h"
#include "proclist.h"
#include "procfs.h"
#include "render-census.h"
#include "scan.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)
DEFINE_CLEANUP(struct gpu *, gpu_close)

/* The processes to try, most private memory first: one pid, those whose
 * name or command line matches a pattern, or all. */
struct candidates {
	struct proc_entry *all;
	size_t n;
};

static bool matches(int root_fd, const struct proc_entry *e, const char *pattern)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *cmdline = NULL;

	if (glob_match(pattern, e->comm))
		return true;
	fd = procfs_open_pid(root_fd, e->pid);
	if (fd < 0 || procfs_read_cmdline(fd, &cmdline) < 0)
		return false;
	return glob_match(pattern, cmdline);
}

static int collect_candidates(int root_fd, const char *pattern, struct candidates *ret)
{
	struct proc_entry *all;
	size_t n, kept = 0;
	int r = proclist_collect(root_fd, &all, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (all[i].pid == getpid() || (pattern && !matches(root_fd, &all[i], pattern)))
			continue;
		all[kept++] = all[i];
	}
	ret->all = all;
	ret->n = kept;
	return 0;
}

/* A census taken by ramwatchd (op "scan"), with its rights.  Returns 0,
 * -EREMOTEIO when the daemon refused (err holds its reason), or another
 * negative errno when it could not be asked. */
static int scan_by_daemon(const char *socket, int pid, bool light, struct census **ret, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s, s:i, s:b, s:b}", "op", "scan", "pid", pid, "full",
							    !light, "light", light);
	_cleanup_(json_decrefp) json_t *result = NULL;
	struct error reason = { 0 };
	int r;

	if (!request)
		return error_set(&err->error, -ENOMEM, "%s", strerror(ENOMEM));
	r = control_client_ask(control_client_socket_path(socket), request, CONTROL_SCAN_WAIT_US, &result, err);
	if (r < 0)
		return r;
	if (census_from_json(result, ret, &reason) < 0)
		return error_set(&err->error, -EBADMSG, "ramwatchd sent a census this client cannot read: %s",
				 reason.message);
	return 0;
}

/* Whether a census shows NVIDIA device files mapped: in its regions when
 * it has them, else among its largest regions or in the classes only
 * they fill. */
static bool census_maps_nvidia(const struct census *c)
{
	const struct census_region *r = c->regions ? c->regions : c->largest;
	size_t n = c->regions ? c->n_regions : c->n_largest;
	for (size_t i = 0; i < n; i++)
		if (r[i].path && startswith(r[i].path, "/dev/nvidia"))
			return true;
	return c->classes[CLASS_PINNED_CUDA].count > 0 || c->classes[CLASS_CUDA_UVM].count > 0;
}

/* The GPU section of a census ramwatchd took without one: NVML answers
 * for every process, so the client adds it. */
static int add_gpu(struct census *c, struct gpu *gpu)
{
	struct gpu_snapshot s;
	int r;
	if (!gpu || c->gpu.taken)
		return 0;
	if ((r = gpu_snapshot_take(gpu, &s)) < 0)
		return r;
	r = scan_fill_gpu(c, &s, census_maps_nvidia(c));
	gpu_snapshot_done(&s);
	return r;
}

static int scan_failed(const struct error *err)
{
	return fail("%s", err->message);
}

/* Scans the first candidate that can be read; says which were passed over. */
static int scan_candidates(const struct candidates *cands, const struct scan_options *so, const char *what,
			   struct census **ret)
{
	char a[FORMAT_BYTES_MAX];
	struct error err = { 0 };
	int r = -ENOENT;

	if (cands->n == 0)
		return fail("no process %s", what);
	for (size_t i = 0; i < cands->n; i++) {
		r = scan_process(cands->all[i].pid, so, ret, &err);
		if (r == 0) {
			size_t others = cands->n - i - 1;
			if (others > 0) {
				fprintf(stderr, "ramwatch: %zu other process%s %s, not scanned:", others,
					others == 1 ? "" : "es", what);
				for (size_t k = i + 1; k < cands->n && k < i + 4; k++)
					fprintf(stderr, "%s %s (pid %d, %s)", k > i + 1 ? "," : "", cands->all[k].comm,
						cands->all[k].pid, format_bytes(a, cands->all[k].private));
				fputs(others > 3 ? ", ...\n" : "\n", stderr);
			}
			return 0;
		}
		if (r != -EACCES && r != -ENOENT && r != -ESRCH && r != -EOPNOTSUPP)
			return scan_failed(&err);
		fprintf(stderr, "ramwatch: pid %d (%s, private %s) passed over: %s\n", cands->all[i].pid,
			cands->all[i].comm, format_bytes(a, cands->all[i].private), err.message);
	}
	return fail("no process %s could be scanned", what);
}

/* What the command line asked for. */
struct scan_args {
	const char *name, *smaps, *status, *out_path, *proc, *socket, *memory, *save_memory;
	enum output out;
	size_t top;
	bool regions, light, daemon, gpu_asked, no_gpu, no_evidence, no_heap;
	int pid;
};

/* Reads the options and the PID into a.  Returns -1 to go on, else the
 * exit status (0 after --help). */
static int scan_parse_args(const struct command *self, int argc, char **argv, struct scan_args *a)
{
	int opt, r;

	*a = (struct scan_args){ .out = OUT_TABLE, .top = RW_TOP_DEFAULT };
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'n': a->name = optarg; break;
		case 's': a->smaps = optarg; break;
		case 'S': a->status = optarg; break;
		case 'j': a->out = OUT_JSON; break;
		case 'm': a->out = OUT_MARKDOWN; break;
		case 'r': a->regions = true; break;
		case 't':
			if ((r = parse_top("scan", optarg, &a->top)) != 0)
				return r;
			break;
		case 'o': a->out_path = optarg; break;
		case 'p': a->proc = optarg; break;
		case 'l': a->light = true; break;
		case 'g': a->gpu_asked = true; break;
		case 'G': a->no_gpu = true; break;
		case 'E': a->no_evidence = true; break;
		case 'H': a->no_heap = true; break;
		case 'M': a->memory = optarg; break;
		case 'W': a->save_memory = optarg; break;
		case 'd': a->daemon = true; break;
		case OPT_SOCKET: a->socket = optarg; break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("scan", "bad option");
		}
	}
	if (optind < argc) {
		if (parse_pid(argv[optind], &a->pid) < 0)
			return usage_error("scan", "'%s' is not a process id", argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_error("scan", "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* The options that do not go together.  Returns -1 when they do, else the
 * exit status. */
static int scan_check_args(const struct scan_args *a)
{
	if ((a->pid > 0) + (a->name != NULL) + (a->smaps != NULL) > 1)
		return usage_error("scan", "give one of PID, --name and --smaps");
	if (a->status && !a->smaps)
		return usage_error("scan", "--status goes with --smaps");
	if (a->light && a->smaps)
		return usage_error("scan", "--light reads a live process; a saved smaps file is read whole");
	if (a->daemon && (a->pid == 0 || a->proc))
		return usage_error("scan", "--daemon takes a PID (and no --proc)");
	if (a->gpu_asked && a->no_gpu)
		return usage_error("scan", "give one of --gpu and --no-gpu");
	if (a->memory && !a->smaps)
		return usage_error("scan", "--memory goes with --smaps (a live process is read as it is)");
	if (a->save_memory && (a->smaps || a->daemon || a->pid == 0))
		return usage_error("scan", "--save-memory takes a PID: it saves what was read of a live process");
	if (a->save_memory && a->no_evidence)
		return usage_error("scan", "give one of --save-memory and --no-evidence");
	if (a->gpu_asked && a->smaps)
		return usage_error("scan", "--gpu reads a live process's GPU memory; a saved smaps file has none");
	return -1;
}

/* A live process's census, from ramwatchd when this user may not read it
 * (the daemon has CAP_SYS_PTRACE, and answers for the processes this user
 * may see).  Returns 0 with *ret, else the exit status. */
static int scan_pid(const struct scan_args *a, const struct scan_options *so, struct census **ret)
{
	struct error err = { 0 };
	struct control_error derr = { 0 };
	int r = scan_process(a->pid, so, ret, &err);

	if (r == -EACCES && !a->proc) {
		fprintf(stderr, "ramwatch: permission denied reading /proc/%d/smaps; asking ramwatchd\n", a->pid);
		r = scan_by_daemon(a->socket, a->pid, a->light, ret, &derr);
		if (r == -EREMOTEIO)
			return fail("%s", derr.error.message);
		if (r < 0)
			return fail("%s\nramwatch: ramwatchd could not help: %s", err.message, derr.error.message);
	} else if (r < 0) {
		return scan_failed(&err);
	}
	return 0;
}

/* Without a PID: the process with the most private memory (matching
 * --name).  Returns 0 with *ret, else the exit status. */
static int scan_largest(const struct scan_args *a, const struct scan_options *so, struct census **ret)
{
	_cleanup_close_ int root_fd = procfs_open_root(a->proc);
	struct candidates cands = { 0 };
	char what[256];
	int r;

	if (root_fd < 0)
		return fail("cannot open %s: %s", a->proc ? a->proc : "/proc", strerror(-root_fd));
	r = collect_candidates(root_fd, a->name, &cands);
	if (r < 0)
		return fail("cannot list processes: %s", strerror(-r));
	snprintf(what, sizeof(what), a->name ? "matching '%s'" : "%s", a->name ? a->name : "");
	r = scan_candidates(&cands, so, a->name ? what : "with private memory", ret);
	free(cands.all);
	return r;
}

int cmd_scan(const struct command *self, int argc, char **argv)
{
	_cleanup_(census_freep) struct census *c = NULL;
	_cleanup_(gpu_closep) struct gpu *gpu = NULL;
	_cleanup_fclose_ FILE *memory_out = NULL;
	struct scan_args a;
	int r;

	if ((r = scan_parse_args(self, argc, argv, &a)) >= 0 || (r = scan_check_args(&a)) >= 0)
		return r;
	if (a.save_memory && !(memory_out = fopen(a.save_memory, "we")))
		return fail("%s: %m", a.save_memory);
	/* NVML is opened once per run, on a thread of its own while /proc is
	 * read: a host with the driver pays nvmlInit_v2 there, one without
	 * its device files two access(2) calls */
	if (!a.no_gpu && !a.smaps && gpu_open_background(NULL, &gpu) < 0)
		return fail("out of memory");
	struct scan_options so = { .proc_root = a.proc, .top = a.top, .keep_regions = a.regions || a.out_path,
				   .light = a.light, .gpu = gpu, .no_evidence = a.no_evidence,
				   .no_heap = a.no_heap, .memory_image = a.memory, .record_memory = memory_out };

	if (a.smaps) {
		struct error err = { 0 };
		if (scan_smaps_file(a.smaps, a.status, &so, &c, &err) < 0)
			return fail("%s", err.message);
	} else if (a.pid > 0 && a.daemon) {
		struct control_error derr = { 0 };
		if (scan_by_daemon(a.socket, a.pid, a.light, &c, &derr) < 0)
			return fail("%s", derr.error.message);
	} else if ((r = a.pid > 0 ? scan_pid(&a, &so, &c) : scan_largest(&a, &so, &c)) != 0) {
		return r;
	}

	if (add_gpu(c, gpu) < 0)
		return fail("out of memory");
	if (a.regions && !c->regions)
		fprintf(stderr, "ramwatch: the census of ramwatchd holds no region list; the largest regions follow\n");
	if (memory_out && (fflush(memory_out) != 0 || ferror(memory_out)))
		return fail("writing %s: %m", a.save_memory);
	if (a.out_path && (r = save_census(c, a.out_path)) != 0)
		return r;
	return print_census(c, a.out, a.top, a.regions, a.gpu_asked);
}
