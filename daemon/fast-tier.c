/* The fast tier (fast-tier.h): one statm read per watched process per
 * SampleInterval (status when statm changed), and the row it comes to per
 * StoreInterval. */
#include "fast-tier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "log.h"
#include "procfs.h"
#include "target.h"
#include "writer.h"

_Static_assert(sizeof(struct fast_slot) == 128, "a slot is two cache lines");

void fast_tier_done(struct fast_tier *f)
{
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
	f->slots[f->n_slots++] = (struct fast_slot){ .target = t, .statm_fd = t->statm_fd };
	return 0;
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
	f->slots[i] = f->slots[--f->n_slots];
	if (i < f->n_slots)
		f->slots[i].target->fast_slot = (unsigned)i;
}

size_t fast_tier_count(const struct fast_tier *f)
{
	return f->n_slots;
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
		r = procfs_pread_statm_text(s->statm_fd, text, sizeof(text), &len);
		if (r == 0 && len == s->len && now < s->quiet_until && now_ms < s->status_due_ms &&
		    memcmp(text, s->statm, len) == 0) {
			if (s->repeats < UINT32_MAX)
				s->repeats++;
			s->repeated_ms = now_ms;
			return 1;
		}
		if (r == 0)
			r = statm_parse(text, len, &statm);
		if (r < 0) {
			*ret_target = s->target;
			return r == -ESRCH ? r : failed(f, s->target, r);
		}
		have = &statm;
	}

	struct target *t = s->target;
	*ret_target = t;
	settle(s);
	r = target_sample(t, have, now_ms, status_every_ms);
	if (r < 0) {
		s->len = 0;
		return r == -ESRCH ? r : failed(f, t, r);
	}
	s->status_due_ms = target_status_due_ms(t, status_every_ms);
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
