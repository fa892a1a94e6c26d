/* The fast tier (fast-tier.h): one statm read per watched process per
 * SampleInterval (status when statm changed), and the row it comes to per
 * StoreInterval. */
#include "fast-tier.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "change-watch.h"
#include "limits.h"
#include "log.h"
#include "procfs.h"
#include "target.h"
#include "writer.h"

_Static_assert(sizeof(struct fast_slot) == 128, "a slot is two cache lines");

void fast_tier_done(struct fast_tier *f)
{
	f->watch = change_watch_free(f->watch);
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
	t->fast_slot = (unsigned)f->n_slots;
	f->slots[f->n_slots++] = (struct fast_slot){
		.target = t,
		.statm_fd = t->statm_fd,
		.watch = f->watch && t->statm_fd >= 0 ? change_watch_add(f->watch, t->pid) : 0,
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
	if (!fast_tier_sees_mappings(f) || t->fast_slot >= f->n_slots)
		return STEADY_MAPPINGS_UNKNOWN;
	const struct fast_slot *s = &f->slots[t->fast_slot];
	if (s->target != t || !s->watch)
		return STEADY_MAPPINGS_UNKNOWN;
	return change_watch_take(f->watch, s->watch, CHANGE_MAPPINGS) ? STEADY_MAPPINGS_MOVED : STEADY_MAPPINGS_KEPT;
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
		target_repeat_sample(s->target, s->repeats, s->repeated_ms);
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
	size_t i = t->fast_slot;

	settle(&f->slots[i]);
	if (f->watch && f->slots[i].watch)
		change_watch_remove(f->watch, t->pid, f->slots[i].watch);
	f->slots[i] = f->slots[--f->n_slots];
	if (i < f->n_slots)
		f->slots[i].target->fast_slot = (unsigned)i;
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
		r = procfs_pread_statm_text(s->statm_fd, text, sizeof(text), &len);
		bool same = r == 0 && len == s->len && memcmp(text, s->statm, len) == 0;
		if (same && quiet && !(said & CHANGE_SWAP))
			return repeat(s, now_ms);
		if (r == 0 && !(said & CHANGE_MOVED) && s->len > 0 && !same && resident_moved(s, text, len))
			watch_missed(f, s);
		if (said & CHANGE_SWAP)
			target_status_stale(s->target);
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
	r = target_sample(t, have, now_ms, every);
	if (r < 0) {
		s->len = 0;
		return r == -ESRCH ? r : failed(f, t, r);
	}
	s->status_due_ms = target_status_due_ms(t, every);
	s->quiet_until = 0; /* until fast_tier_quiet says */
	s->len = have && len <= sizeof(s->statm) ? (uint8_t)len : 0;
	memcpy(s->statm, text, s->len);
	return 0;
}

void fast_tier_quiet(struct fast_tier *f, const struct target *t, uint64_t until)
{
	f->slots[t->fast_slot].quiet_until = until;
}

void fast_tier_wake(struct fast_tier *f, const struct target *t)
{
	f->slots[t->fast_slot].quiet_until = 0;
}

void fast_tier_wake_all(struct fast_tier *f)
{
	for (size_t i = 0; i < f->n_slots; i++)
		f->slots[i].quiet_until = 0;
}

void fast_tier_settle(struct fast_tier *f, struct target *t)
{
	settle(&f->slots[t->fast_slot]);
}

void fast_tier_round(struct fast_tier *f, uint64_t us)
{
	if (us > f->round_us_max)
		f->round_us_max = us;
}

void fast_tier_queue(struct fast_tier *f, struct target *t, struct writer *writer, int64_t now_ms)
{
	struct store_sample x;

	settle(&f->slots[t->fast_slot]);
	if (sample_acc_take(&t->acc, now_ms, &x))
		(void)writer_add_sample(writer, t->ref, &x);
}
