/* libFuzzer target: the SystemProcessInformation parser
 * (daemon/windows/win-procs.c).  An input is the address the buffer was
 * read at (8 bytes, as the names' Buffer fields point) and the buffer;
 * the seeds are snapshots taken under Wine (procsnap.exe --raw).  Nothing
 * may crash or read past the buffer, and a snapshot accepted must hold
 * together: sorted by pid and creation time, each record found again,
 * names within their limit, nothing changed between it and itself. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "win-procs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int never(void *userdata, enum win_procs_change change, const struct win_proc *p)
{
	(void)userdata;
	(void)change;
	(void)p;
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct win_procs *s = NULL;
	uint64_t address;

	if (size < sizeof(address))
		return 0;
	memcpy(&address, data, sizeof(address));
	/* a copy of exactly the buffer's bytes, so a read past it is caught */
	size_t len = size - sizeof(address);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + sizeof(address), len);
	/* a snapshot taken on 2026-12-07: a creation time past it by more than
	 * the slack reads 0 */
	const uint64_t taken = 134411190000000000ull;
	int r = win_procs_parse(buf, len, address, taken, &s, NULL);
	if (r != 0 && r != -EBADMSG && r != -E2BIG && r != -ENOMEM)
		abort();
	if (r == 0) {
		if (s->n == 0)
			abort();
		for (size_t i = 0; i < s->n; i++) {
			const struct win_proc *p = &s->procs[i];
			if (strlen(p->name) > 3 * RW_WIN_PROC_NAME_MAX || p->created > taken + WIN_PROCS_CREATED_SLACK)
				abort();
			if (i > 0 && (p[-1].pid > p->pid || (p[-1].pid == p->pid && p[-1].created > p->created)))
				abort();
			const struct win_proc *f = win_procs_find(s, p->pid, p->created);
			if (!f || f->pid != p->pid || f->created != p->created)
				abort();
		}
		if (win_procs_compare(s, s, never, NULL) != 0)
			abort();
	}
	win_procs_free(s);
	free(buf);
	return 0;
}
