/* libFuzzer target: kernel log records as the OOM kill reader takes them
 * (daemon/oom-kmsg.c).  The input is split at newlines into records, each
 * parsed and fed in order, as /dev/kmsg hands them to the daemon: names
 * and paths of any length and content, numbers past any range, lines cut
 * anywhere.  Nothing may crash or read out of bounds; a kill given has a
 * pid, NUL-terminated names and paths within their arrays, and a refusal
 * always says why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oom-kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kill(const struct oom_kmsg_kill *k)
{
	if (k->pid <= 0 || memchr(k->comm, 0, sizeof(k->comm)) == NULL ||
	    memchr(k->oom_memcg, 0, sizeof(k->oom_memcg)) == NULL ||
	    memchr(k->task_memcg, 0, sizeof(k->task_memcg)) == NULL || memchr(k->invoker, 0, sizeof(k->invoker)) == NULL)
		abort();
	if (!k->have_oom_memcg && k->oom_memcg[0])
		abort();
	if ((unsigned)k->constraint > OOM_CONSTRAINT_MEMCG)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct oom_kmsg st;

	oom_kmsg_init(&st);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl + 1 : end) - p);
		/* a record in a buffer of its own, so that a read past it is seen */
		char *rec = malloc(len ? len : 1);
		if (!rec)
			abort();
		memcpy(rec, p, len);
		struct kmsg_record r;
		struct oom_kmsg_kill k;
		char why[160] = "";
		if (kmsg_record_parse(rec, len, &r, why, sizeof(why)) == 0) {
			int e = oom_kmsg_feed(&st, &r, &k, why, sizeof(why));
			if (e == 1)
				check_kill(&k);
			else if ((e < 0 && why[0] == 0) || e > 1)
				abort();
		} else if (why[0] == 0)
			abort();
		free(rec);
		p += len;
	}
	return 0;
}
