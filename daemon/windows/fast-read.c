/* The fast tier's reads on Windows (fast-read.h): one snapshot of every
 * process per round, each watched process looked up in it by pid and
 * creation time (a binary search), where Windows's per-process calls
 * would cost an OpenProcess and a GetProcessMemoryInfo each. */
#include "fast-read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "log.h"
#include "target.h"
#include "win-procs.h"

struct fast_read {
	struct win_procs_reader reader;
	struct win_procs *now;  /* the round's snapshot; NULL when it failed */
	bool failure_logged;
};

int fast_read_round(struct fast_read **ret)
{
	struct fast_read *r = *ret;
	struct error err = { 0 };

	if (!r && !(r = *ret = calloc(1, sizeof(*r))))
		return -ENOMEM;
	r->now = win_procs_free(r->now);
	int k = win_procs_read(&r->reader, &r->now, &err);
	if (k < 0) {
		if (!r->failure_logged)
			log_warning_errno(k, "cannot list the processes to sample them: %s", err.message);
		r->failure_logged = true;
		return k;
	}
	r->failure_logged = false;
	return 0;
}

struct fast_read *fast_read_free(struct fast_read *r)
{
	if (!r)
		return NULL;
	win_procs_free(r->now);
	win_procs_reader_done(&r->reader);
	free(r);
	return NULL;
}

int fast_read_open_statm(const struct target *t)
{
	(void)t;
	return -EOPNOTSUPP;
}

int fast_read_statm_text(int fd, char *buf, size_t size, size_t *ret_len)
{
	(void)fd;
	(void)buf;
	(void)size;
	(void)ret_len;
	return -EOPNOTSUPP;
}

int fast_read_figures(struct fast_read *r, const struct target *t, uint64_t *ret_private, uint64_t *ret_resident,
		      uint64_t *ret_swap)
{
	if (!r || !r->now)
		return -EIO; /* the round's snapshot failed (logged) */
	const struct win_proc *p = win_procs_find(r->now, (uint32_t)t->pid, t->start_time);
	if (!p)
		return -ESRCH;
	*ret_private = p->commit;
	*ret_resident = p->working_set;
	*ret_swap = 0;
	return 0;
}
