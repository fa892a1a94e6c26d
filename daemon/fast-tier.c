/* The fast tier (fast-tier.h): one statm read per watched process per
 * SampleInterval (status when statm changed; on Windows, the round's
 * snapshot: fast-read.h), and the row it comes to per StoreInterval. */
#include "fast-tier.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "change-watch.h"
#include "fast-read.h"
#include "limits.h"
#include "log.h"
#include "target.h"
#include "writer.h"

_Static_assert(sizeof(struct fast_slot) == 128, "a slot is two cache lines");

/* ------------------------------------------------------------ a target's part */

void fast_tier_target_init(struct target *t)
{
	t->fast.statm_fd = -1;
}

int fast_tier_open_statm(struct target *t)
{
	/* statm costs a tenth of status to read (BENCHMARKS.md); without a
	 * descriptor for it, status alone still gives every figure */
	int fd = fast_read_open_statm(t);
	if (fd == -ESRCH)
		return fd;
	if (fd < 0 && fd != -EOPNOTSUPP) {
		log_full_errno(LOG_DEBUG, fd, t->pid, "cannot keep statm of process %d open, reading status only: %m",
			       t->pid);
	}
	t->fast.statm_fd = fd < 0 ? -1 : fd;
	return 0;
}

void fast_tier_target_done(struct target *t)
{
	if (t->fast.statm_fd >= 0)
		close(t->fast.statm_fd);
	t->fast.statm_fd = -1;
}

/* Reads the figures of the last sample (fast-read.h). */
static int sample_status(struct fast_tier *f, struct target *t)
{
	return fast_read_figures(f->read, t, &t->fast.private, &t->fast.resident, &t->fast.swap);
}

/* From when (unix ms) status is read again even if statm stays the same:
 * status_every_ms after it was last read (a page swapped in or out changes
 * statm's resident, so swap stays exact) or, for a process that had
 * nothing in swap, RW_STATUS_REFRESH_MS if that is longer.  INT64_MIN
 * before the first status. */
static int64_t status_due_ms(const struct target *t, int64_t status_every_ms)
{
	int64_t every = status_every_ms;

	/* A process with nothing in swap keeps none while statm stays the
	 * same (a page swapped out leaves resident); one with swap may free
	 * swapped pages without a change statm shows. */
	if (!t->fast.status_read)
		return INT64_MIN;
	if (t->fast.swap == 0 && every < RW_STATUS_REFRESH_MS)
		every = RW_STATUS_REFRESH_MS;
	return t->fast.status_at_ms > INT64_MAX - every ? INT64_MAX : t->fast.status_at_ms + every;
}

/* count samples of the last sample's figures, the last at now_ms: into the
 * accumulator, and the process row's last sight and peaks. */
static void note_sample(struct target *t, uint32_t count, int64_t now_ms)
{
	sample_acc_add(&t->fast.acc,
		       &(struct sample_figures){ .private = t->fast.private, .resident = t->fast.resident, .swap = t->fast.swap },
		       count);
	proc_ref_seen(t->ref, now_ms, t->fast.private, t->fast.resident);
}

/* Takes a full sample: private, resident and swap into the accumulator
 * and the peaks.  statm is what was read of t's statm now (NULL without
 * that descriptor).  Status is read only when statm changed since status
 * was last read, at the first sample, and once status_due_ms has come;
 * otherwise the figures of that status are the sample's.  Without statm
 * it reads status every time.  Returns 0, or -ESRCH when the process has
 * exited (or is a zombie), or another negative errno. */
static int sample_full(struct fast_tier *f, struct target *t, const struct proc_statm *statm, int64_t now_ms,
		       int64_t status_every_ms)
{
	int r;

	if (!statm || !t->fast.status_read || !statm_equal(statm, &t->fast.status_statm) ||
	    now_ms >= status_due_ms(t, status_every_ms)) {
		r = sample_status(f, t);
		if (r < 0)
			return r;
		t->fast.status_read = true;
		t->fast.status_at_ms = now_ms;
		if (statm)
			t->fast.status_statm = *statm;
	}
	/* else statm is what it was at the last status: so are its figures */
	note_sample(t, 1, now_ms);
	return 0;
}

/* ------------------------------------------------------------ the slots */

void fast_tier_done(struct fast_tier *f)
{
	f->watch = change_watch_free(f->watch);
	f->read = fast_read_free(f->read);
	free(f->slots);
	f->slots = NULL;
	f->n_slots = f->allocated = 0;
}

int fast_tier_add(struct fast_tier *f, struct target *t)
{
	if (f->n_slots == f->allocated) {
		size_t more = f->allocated ? 2 * f->allocated : 64;
		struct fast_slot *grown = reallocarray(f->slots, more, sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->slots = grown;
		f->allocated = more;
	}
	t->fast.slot = (unsigned)f->n_slots;
	f->slots[f->n_slots++] = (struct fast_slot){
		.target = t,
		.statm_fd = t->fast.statm_fd,
		.watch = f->watch && t->fast.statm_fd >= 0 ? change_watch_add(f->watch, t->pid) : 0,
	};
	return 0;
}

/* A slot out of the change watch (its flag already let go): read every
 * round, its status due by time again, at the next sample. */
static void unwatched(struct fast_slot *s)
{
	s->watch = 0;
	s->recheck = false;
	s->status_due_ms = INT64_MIN;
}

int fast_tier_watch(struct fast_tier *f, bool on, uint32_t capacity)
{
	if (!on || f->watch) {
		if (!on && f->watch) {
			f->watch = change_watch_free(f->watch);
			f->watch_misses = 0;
			for (size_t i = 0; i < f->n_slots; i++)
				unwatched(&f->slots[i]);
		}
		return 0;
	}
	int r = change_watch_new(capacity, &f->watch);
	if (r < 0)
		return r;
	for (size_t i = 0; i < f->n_slots; i++)
		if (f->slots[i].statm_fd >= 0)
			f->slots[i].watch = change_watch_add(f->watch, f->slots[i].target->pid);
	return 0;
}

bool fast_tier_watching(const struct fast_tier *f)
{
	return f->watch;
}

bool fast_tier_sees_mappings(const struct fast_tier *f)
{
	return f->watch && change_watch_sees_mappings(f->watch);
}

enum steady_mappings fast_tier_take_mappings(struct fast_tier *f, const struct target *t)
{
	if (!fast_tier_sees_mappings(f) || t->fast.slot >= f->n_slots)
		return STEADY_MAPPINGS_UNKNOWN;
	const struct fast_slot *s = &f->slots[t->fast.slot];
	if (s->target != t || !s->watch)
		return STEADY_MAPPINGS_UNKNOWN;
	/* both in one take: what the census reads after it is the process
	 * as both say */
	unsigned said = change_watch_take(f->watch, s->watch, CHANGE_MAPPINGS | CHANGE_CENSUS);
	return said & CHANGE_MAPPINGS ? STEADY_MAPPINGS_MOVED
	       : said		      ? STEADY_MAPPINGS_KEPT
				      : STEADY_MAPPINGS_STILL;
}

/* Whether statm's resident or shared pages moved from the slot's last text
 * to text: what rss_stat always tells.  Its size alone may move unseen
 * where a kernel downgrades the mmap lock before it lowers the size (an
 * munmap), and it is in no row. */
static bool resident_moved(const struct fast_slot *s, const char *text, size_t len)
{
	struct proc_statm was, now;

	if (statm_parse(s->statm, s->len, &was) < 0 || statm_parse(text, len, &now) < 0)
		return true;
	return was.resident != now.resident || was.shared != now.shared;
}

/* statm's resident pages read differently while the watch's flag stayed
 * down.  The kernel updates a counter before it fires rss_stat, so a
 * thread preempted between the two (a busy host, a virtual CPU the
 * hypervisor took away) shows the change with the flag still down for a
 * while: the slot is read again next round, and only a flag still down
 * then is a miss (watch_failed). */
static void watch_missed(struct fast_tier *f, struct fast_slot *s)
{
	unsigned said = change_watch_take(f->watch, s->watch, CHANGE_MOVED | CHANGE_SWAP);
	if (said & CHANGE_MOVED) {
		/* it moved during the read: read it again next round */
		change_watch_raise(f->watch, s->watch, said);
		return;
	}
	s->recheck = true;
}

/* The change a slot showed a round ago never raised its flag: the kernel
 * changed the process by a way the tracepoints do not see.  Where that is
 * one process (a kernel may run no tracepoint in the context of a host's
 * own agent), that process leaves the watch and is read every round; at
 * RW_WATCH_MISSES_MAX processes the watch is trusted for none and every
 * process is read every round. */
static void watch_failed(struct fast_tier *f, struct fast_slot *s)
{
	int pid = s->target->pid;

	if (++f->watch_misses >= RW_WATCH_MISSES_MAX) {
		log_pid_warning(pid,
				"statm of process %d changed and the kernel's change events did not say so, as for %" PRIu32
				" processes now: reading every process's statm every round from now on",
				pid, f->watch_misses);
		(void)fast_tier_watch(f, false, 0);
		return;
	}
	log_pid_warning(pid,
			"statm of process %d changed and the kernel's change events did not say so: "
			"reading its statm every round from now on",
			pid);
	change_watch_remove(f->watch, pid, s->watch);
	unwatched(s);
}

/* Repeats come after the target's last full sample: adding them later
 * gives the same accumulator, peaks and last-seen time. */
static void settle(struct fast_slot *s)
{
	if (s->repeats > 0) {
		note_sample(s->target, s->repeats, s->repeated_ms);
		s->repeats = 0;
	}
}

/* A read that failed other than by an exit: counted, the first logged. */
static int failed(struct fast_tier *f, const struct target *t, int r)
{
	if (f->sample_errors++ == 0)
		log_pid_warning_errno(t->pid, r, "cannot sample process %d: %m", t->pid);
	return r;
}

void fast_tier_remove(struct fast_tier *f, struct target *t)
{
	size_t i = t->fast.slot;

	settle(&f->slots[i]);
	if (f->watch && f->slots[i].watch)
		change_watch_remove(f->watch, t->pid, f->slots[i].watch);
	f->slots[i] = f->slots[--f->n_slots];
	if (i < f->n_slots)
		f->slots[i].target->fast.slot = (unsigned)i;
}

size_t fast_tier_count(const struct fast_tier *f)
{
	return f->n_slots;
}

static bool watched(const struct fast_tier *f, const struct fast_slot *s)
{
	return f->watch && s->watch;
}

/* A sample that found nothing changed: counted in the slot only. */
static int repeat(struct fast_slot *s, int64_t now_ms)
{
	if (s->repeats < UINT32_MAX)
		s->repeats++;
	s->repeated_ms = now_ms;
	return 1;
}

int fast_tier_sample(struct fast_tier *f, size_t i, int64_t now_ms, uint64_t now, int64_t status_every_ms,
		     struct target **ret_target)
{
	struct fast_slot *s = &f->slots[i];
	struct proc_statm statm, *have = NULL;
	char text[RW_STATM_TEXT_MAX];
	size_t len = 0;
	int r;

	if (s->statm_fd >= 0) {
		/* the flag is taken before the read: a change after it raises it
		 * again, for the next round.  A watched process's status is read
		 * when statm or its swap moved: no status falls due by time.  An
		 * unwatched one may always have moved; its status falls due by
		 * time (status_due_ms). */
		unsigned said = watched(f, s) ? change_watch_take(f->watch, s->watch, CHANGE_MOVED | CHANGE_SWAP) : CHANGE_MOVED;
		if (s->recheck) {
			s->recheck = false;
			if (!(said & CHANGE_MOVED) && watched(f, s))
				watch_failed(f, s);
			said |= CHANGE_MOVED; /* read, watched or not */
		}
		bool quiet = s->len > 0 && now < s->quiet_until && (watched(f, s) || now_ms < s->status_due_ms);
		if (said == 0 && quiet)
			return repeat(s, now_ms);
		r = fast_read_statm_text(s->statm_fd, text, sizeof(text), &len);
		bool same = r == 0 && len == s->len && memcmp(text, s->statm, len) == 0;
		if (same && quiet && !(said & CHANGE_SWAP))
			return repeat(s, now_ms);
		if (r == 0 && !(said & CHANGE_MOVED) && s->len > 0 && !same && resident_moved(s, text, len))
			watch_missed(f, s);
		if (said & CHANGE_SWAP)
			s->target->fast.status_read = false; /* read status whatever statm says */
		if (r == 0)
			r = statm_parse(text, len, &statm);
		if (r < 0) {
			*ret_target = s->target;
			return r == -ESRCH ? r : failed(f, s->target, r);
		}
		have = &statm;
	}

	struct target *t = s->target;
	int64_t every = watched(f, s) ? INT64_MAX : status_every_ms;
	*ret_target = t;
	settle(s);
	r = sample_full(f, t, have, now_ms, every);
	if (r < 0) {
		s->len = 0;
		return r == -ESRCH ? r : failed(f, t, r);
	}
	s->status_due_ms = status_due_ms(t, every);
	s->quiet_until = 0; /* until fast_tier_quiet says */
	s->len = have && len <= sizeof(s->statm) ? (uint8_t)len : 0;
	memcpy(s->statm, text, s->len);
	return 0;
}

void fast_tier_quiet(struct fast_tier *f, const struct target *t, uint64_t until)
{
	f->slots[t->fast.slot].quiet_until = until;
}

void fast_tier_wake(struct fast_tier *f, const struct target *t)
{
	f->slots[t->fast.slot].quiet_until = 0;
}

void fast_tier_wake_all(struct fast_tier *f)
{
	for (size_t i = 0; i < f->n_slots; i++)
		f->slots[i].quiet_until = 0;
}

void fast_tier_settle(struct fast_tier *f, struct target *t)
{
	settle(&f->slots[t->fast.slot]);
}

int fast_tier_begin_round(struct fast_tier *f)
{
	return fast_read_round(&f->read);
}

void fast_tier_round(struct fast_tier *f, uint64_t us)
{
	if (us > f->round_us_max)
		f->round_us_max = us;
}

void fast_tier_queue(struct fast_tier *f, struct target *t, struct writer *writer, int64_t now_ms)
{
	struct store_sample x;

	settle(&f->slots[t->fast.slot]);
	if (sample_acc_take(&t->fast.acc, now_ms, &x))
		(void)writer_add_sample(writer, t->ref, &x);
}
