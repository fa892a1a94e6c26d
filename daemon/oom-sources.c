/* The daemon's sources of OOM kills on its event loop (oom-sources.h). */
#include "oom-sources.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "kmsg-source.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "oom-watch-event.h"
#include "oom-watch.h"
#include "util.h"

/* The file of the state directory that keeps the host's count of OOM
 * kills between runs. */
#define COUNT_FILE "oom-kills.count"
/* kills handed over at once from the pairing; more wait for the next call */
#define GIVE_BATCH 32
/* kernel log records read per wake-up: a flood of log lines must not hold
 * the loop (the rest are read on the next iteration) */
#define KMSG_RECORDS_PER_READ 256

struct oom_sources {
	struct event_loop *event;
	struct oom_kills *kills;
	oom_sources_kill_t fn;
	void *userdata;
	int proc_fd;
	char *count_path, *boot_id;

	struct oom_watch *watch;
	struct kmsg_source *kmsg;
	struct event_source *watch_io, *kmsg_io, *grace;
	bool counter;
	uint64_t last_count; /* the count as last kept */
	bool have_count;
	uint64_t tick_count; /* the count read at the last tick, compared at the next */
	bool have_tick_count;

	struct oom_sources_status st;
	uint64_t page_size;
};

int64_t oom_sources_unix_ms(uint64_t mono_ns, int64_t now_unix_ms, uint64_t now_mono_ns)
{
	/* a time a little ahead of now (the log's clock is not quite the
	 * monotonic one) is now */
	if (mono_ns >= now_mono_ns)
		return now_unix_ms;
	return now_unix_ms - (int64_t)((now_mono_ns - mono_ns) / 1000000u);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int oom_sources_parse_vmstat(const char *text, size_t len, uint64_t *ret)
{
	static const char key[] = "oom_kill ";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if ((size_t)(e - p) > sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0)
			return parse_u64_n(p + sizeof(key) - 1, (size_t)(e - p) - (sizeof(key) - 1), 10, ret) < 0
				       ? -EBADMSG
				       : 0;
		p = e + 1;
	}
	return -ENOENT;
}

int oom_sources_parse_count(const char *text, size_t len, const char *boot_id, uint64_t *ret)
{
	const char *sp = memchr(text, ' ', len);
	if (!sp)
		return -EBADMSG;
	size_t id_len = (size_t)(sp - text), rest = len - id_len - 1;
	if (rest > 0 && sp[rest] == '\n')
		rest--;
	uint64_t v;
	if (id_len == 0 || parse_u64_n(sp + 1, rest, 10, &v) < 0)
		return -EBADMSG;
	if (strlen(boot_id) != id_len || memcmp(text, boot_id, id_len) != 0)
		return -ESTALE;
	*ret = v;
	return 0;
}

/* ------------------------------------------------------------ giving */

static void give(struct oom_sources *s, const struct oom_kill *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (k[i].sources == OOM_SOURCE_COUNTER)
			s->st.counted++;
		else if ((unsigned)k[i].constraint < ELEMENTSOF(s->st.kills))
			s->st.kills[k[i].constraint]++;
		s->fn(s->userdata, &k[i]);
	}
}

/* Gives the kills that are whole or whose grace is over (all of them with
 * everything). */
static void take(struct oom_sources *s, int64_t now_ms)
{
	struct oom_kill out[GIVE_BATCH];
	size_t n;

	while ((n = oom_kills_take(s->kills, now_ms, s->watch != NULL, s->kmsg != NULL, out, ELEMENTSOF(out))) > 0) {
		give(s, out, n);
		if (n < ELEMENTSOF(out))
			break;
	}
}

static void on_grace(struct event_source *e, void *userdata)
{
	(void)e;
	take(userdata, now_realtime_ms());
}

/* After a telling: what is whole is given now, the rest when its grace is
 * over. */
static void told(struct oom_sources *s)
{
	take(s, now_realtime_ms());
	if (s->grace)
		(void)event_timer_arm_after(s->grace, (OOM_KILLS_GRACE_MS + 50) * 1000ull);
}

/* A source's add returned -ENOBUFS: every kill waiting is given (each with
 * what came), then it is added again. */
static void make_room(struct oom_sources *s)
{
	take(s, INT64_MAX / 2);
}

static int on_watch_event(void *userdata, const struct oom_watch_event *e)
{
	struct oom_sources *s = userdata;
	int64_t t = oom_sources_unix_ms(e->time_ns, now_realtime_ms(), mono_ns());

	if (oom_kills_add_watch(s->kills, e, t, s->page_size) == -ENOBUFS) {
		make_room(s);
		(void)oom_kills_add_watch(s->kills, e, t, s->page_size);
	}
	return 0;
}

static int on_kmsg_kill(void *userdata, const struct oom_kmsg_kill *k)
{
	struct oom_sources *s = userdata;
	int64_t t = oom_sources_unix_ms(k->usec * 1000u, now_realtime_ms(), mono_ns());

	if (oom_kills_add_kmsg(s->kills, k, t) == -ENOBUFS) {
		make_room(s);
		(void)oom_kills_add_kmsg(s->kills, k, t);
	}
	return 0;
}

static void on_watch_io(struct event_source *e, uint32_t revents, void *userdata)
{
	struct oom_sources *s = userdata;
	(void)e;
	(void)revents;
	if (oom_watch_read(s->watch) > 0)
		told(s);
}

static void on_kmsg_io(struct event_source *e, uint32_t revents, void *userdata)
{
	struct oom_sources *s = userdata;
	(void)e;
	(void)revents;
	(void)kmsg_source_read(s->kmsg, KMSG_RECORDS_PER_READ);
	told(s);
}

/* ------------------------------------------------------------ the sources */

static void close_watch(struct oom_sources *s)
{
	s->watch_io = event_source_free(s->watch_io);
	s->watch = oom_watch_free(s->watch);
}

static void close_kmsg(struct oom_sources *s)
{
	s->kmsg_io = event_source_free(s->kmsg_io);
	s->kmsg = kmsg_source_free(s->kmsg);
}

static void open_watch(struct oom_sources *s, bool on, const char *off)
{
	char *why = s->st.watch_why;
	int r;

	if (!on) {
		if (s->watch)
			log_info("OOM watch (BPF) unloaded (%s)", off ? off : "OOMWatch=no");
		close_watch(s);
		snprintf(why, OOM_SOURCES_WHY_MAX, "%s", off ? off : "OOMWatch=no");
		return;
	}
	if (s->watch)
		return;
	r = oom_watch_new(on_watch_event, s, &s->watch);
	if (r >= 0)
		r = event_loop_add_io(s->event, oom_watch_fd(s->watch), EVENT_IN, on_watch_io, s, "oom-watch",
				      &s->watch_io);
	if (r < 0) {
		close_watch(s);
		snprintf(why, OOM_SOURCES_WHY_MAX, "%s",
			 r == -EXDEV ? "not in the first pid namespace"
			 : r == -EPERM || r == -EACCES ? "not allowed to load BPF programs (CAP_BPF and CAP_PERFMON)"
			 : r == -ENOENT || r == -EINVAL || r == -EOPNOTSUPP
				 ? "the kernel lacks BTF or the mark_victim and signal_generate tracepoints"
				 : strerror(-r));
		log_notice("OOM kills not watched through BPF (%s): they are read from the kernel's log and counted", why);
		return;
	}
	why[0] = '\0';
	log_info("OOM kills watched through BPF (mark_victim)");
}

static void open_kmsg(struct oom_sources *s, bool on, const char *path)
{
	char *why = s->st.kmsg_why;
	int r;

	if (!on) {
		if (s->kmsg)
			log_info("the kernel's log no longer read for OOM kills (KernelLog=no)");
		close_kmsg(s);
		snprintf(why, OOM_SOURCES_WHY_MAX, "KernelLog=no");
		return;
	}
	if (s->kmsg)
		return;
	r = kmsg_source_open(path, on_kmsg_kill, s, &s->kmsg);
	if (r >= 0)
		r = event_loop_add_io(s->event, kmsg_source_fd(s->kmsg), EVENT_IN, on_kmsg_io, s, "kmsg", &s->kmsg_io);
	if (r < 0) {
		close_kmsg(s);
		snprintf(why, OOM_SOURCES_WHY_MAX, "%s%s", path ? path : "/dev/kmsg",
			 r == -EPERM || r == -EACCES ? ": not allowed to read it (CAP_SYSLOG)" : ": cannot be opened");
		log_notice_errno(r, "the kernel's log is not read for OOM kills (%s): %m", why);
		return;
	}
	why[0] = '\0';
	log_info("OOM kills read from the kernel's log (%s)", path ? path : "/dev/kmsg");
}

/* ------------------------------------------------------------ the count */

static int read_count(struct oom_sources *s, uint64_t *ret)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = read_full_fileat(s->proc_fd, "vmstat", RW_PROC_FILE_MAX, &text, &len);
	if (r < 0)
		return r;
	return oom_sources_parse_vmstat(text, len, ret);
}

static void keep_count(struct oom_sources *s, uint64_t count)
{
	char line[128];

	if (!s->count_path || (s->have_count && s->last_count == count))
		return;
	int n = snprintf(line, sizeof(line), "%s %" PRIu64 "\n", s->boot_id, count);
	int r = write_file_atomic(s->count_path, line, (size_t)n);
	if (r < 0)
		log_debug_errno(r, "cannot keep the count of OOM kills in %s: %m", s->count_path);
	s->have_count = true;
	s->last_count = count;
}

/* The kills counted since the count kept by the last run of this boot:
 * given as counted kills, their details unknown. */
static void count_at_start(struct oom_sources *s, uint64_t now_count)
{
	_cleanup_free_ char *text = NULL;
	struct oom_kill out[GIVE_BATCH];
	uint64_t kept;
	size_t len, n;
	int fd;

	if (!s->count_path || (fd = open(s->count_path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	int r = read_full_fd(fd, 4096, &text, &len);
	close(fd);
	if (r < 0 || oom_sources_parse_count(text, len, s->boot_id, &kept) < 0 || kept > now_count)
		return;
	if (now_count > kept)
		log_notice("%" PRIu64 " OOM kill%s while ramwatchd was not running: recorded as counted, their "
			   "details unknown", now_count - kept, now_count - kept == 1 ? "" : "s");
	/* counting starts at the kept count: the kills since are missed ones */
	(void)oom_kills_count(s->kills, kept, now_realtime_ms(), out, ELEMENTSOF(out));
	while ((n = oom_kills_count(s->kills, now_count, now_realtime_ms(), out, ELEMENTSOF(out))) > 0)
		give(s, out, n);
}

/* Reads what the sources have waiting now, so that a kill the kernel
 * counted is told before the count is compared. */
static void drain(struct oom_sources *s)
{
	if (s->watch)
		(void)oom_watch_read(s->watch);
	if (s->kmsg)
		(void)kmsg_source_read(s->kmsg, KMSG_RECORDS_PER_READ);
}

static void compare(struct oom_sources *s, uint64_t count)
{
	struct oom_kill out[GIVE_BATCH];
	size_t n;

	while ((n = oom_kills_count(s->kills, count, now_realtime_ms(), out, ELEMENTSOF(out))) > 0)
		give(s, out, n);
	keep_count(s, count);
}

void oom_sources_tick(struct oom_sources *s)
{
	uint64_t count;

	drain(s);
	take(s, now_realtime_ms());
	if (s->kmsg) {
		struct kmsg_source_stats ks;
		kmsg_source_stats(s->kmsg, &ks);
		s->st.kmsg_lost = ks.lost;
		s->st.kmsg_bad_lines = ks.bad_lines;
	}
	if (!s->counter || read_count(s, &count) < 0)
		return;
	/* The count of the last tick is compared, not this one: the kernel
	 * counts a kill before its log line is written, and a kill counted a
	 * moment ago may still be on its way from a source; a whole
	 * StoreInterval later, every source has told it. */
	if (s->have_tick_count)
		compare(s, s->tick_count);
	s->tick_count = count;
	s->have_tick_count = true;
}

int oom_sources_new(struct event_loop *e, const struct oom_sources_options *o, oom_sources_kill_t fn,
		    void *userdata, struct oom_sources **ret)
{
	struct oom_sources *s = calloc(1, sizeof(*s));
	uint64_t count;
	int r;

	if (!s)
		return -ENOMEM;
	s->event = e;
	s->fn = fn;
	s->userdata = userdata;
	s->proc_fd = o->proc_fd;
	s->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if ((r = oom_kills_new(&s->kills)) < 0 ||
	    (o->state_dir && o->boot_id &&
	     (asprintf(&s->count_path, "%s/" COUNT_FILE, o->state_dir) < 0 || !(s->boot_id = strdup(o->boot_id)))) ||
	    (r = event_loop_add_timer(e, UINT64_MAX, 100 * 1000, on_grace, s, "oom-grace", &s->grace)) < 0) {
		s->count_path = NULL;
		oom_sources_free(s);
		return r < 0 ? r : -ENOMEM;
	}
	event_timer_disarm(s->grace);

	r = read_count(s, &count);
	s->counter = r >= 0;
	if (r < 0)
		snprintf(s->st.counter_why, sizeof(s->st.counter_why), "%s",
			 r == -ENOENT ? "the kernel does not count OOM kills (vmstat oom_kill, Linux 4.13)"
				      : "/proc/vmstat cannot be read");
	else
		count_at_start(s, count);
	open_watch(s, o->watch, o->watch_off);
	open_kmsg(s, o->kmsg, o->kmsg_path);
	/* the first count: where counting starts (after the missed ones) */
	if (s->counter) {
		struct oom_kill out[1];
		(void)oom_kills_count(s->kills, count, now_realtime_ms(), out, 0);
		keep_count(s, count);
	}
	*ret = s;
	return 0;
}

void oom_sources_reload(struct oom_sources *s, const struct oom_sources_options *o)
{
	/* what a source that goes told is given first, as it is */
	make_room(s);
	open_watch(s, o->watch, o->watch_off);
	open_kmsg(s, o->kmsg, o->kmsg_path);
}

void oom_sources_status(const struct oom_sources *s, struct oom_sources_status *ret)
{
	*ret = s->st;
	ret->watch = s->watch != NULL;
	ret->kmsg = s->kmsg != NULL;
	ret->counter = s->counter;
}

void oom_sources_stop(struct oom_sources *s)
{
	uint64_t count;

	/* a kill still in its grace is given as it is; the count kept is
	 * the one all given kills are in */
	drain(s);
	make_room(s);
	if (s->counter && read_count(s, &count) == 0)
		compare(s, count);
}

struct oom_sources *oom_sources_free(struct oom_sources *s)
{
	if (!s)
		return NULL;
	close_watch(s);
	close_kmsg(s);
	event_source_free(s->grace);
	oom_kills_free(s->kills);
	free(s->count_path);
	free(s->boot_id);
	free(s);
	return NULL;
}
