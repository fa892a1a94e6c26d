/* The fast tier (fast-tier.h): one statm read per watched process per
 * SampleInterval (status when statm changed), and the row it comes to per
 * StoreInterval. */
#include "fast-tier.h"

#include <errno.h>

#include "log.h"
#include "target.h"
#include "writer.h"

int fast_tier_sample(struct fast_tier *f, struct target *t, int64_t now_ms, int64_t status_every_ms)
{
	int r = target_sample(t, now_ms, status_every_ms);
	if (r == -ESRCH)
		return r;
	if (r < 0) {
		/* once: a status file that cannot be read stays so */
		if (f->sample_errors++ == 0)
			log_pid_warning_errno(t->pid, r, "cannot read the status of process %d: %m", t->pid);
		return r;
	}
	return 0;
}

void fast_tier_round(struct fast_tier *f, uint64_t us)
{
	if (us > f->round_us_max)
		f->round_us_max = us;
}

void fast_tier_queue(struct target *t, struct writer *writer, int64_t now_ms)
{
	struct store_sample x;

	if (sample_acc_take(&t->acc, now_ms, &x))
		(void)writer_add_sample(writer, t->ref, &x);
}
