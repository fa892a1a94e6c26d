/* The processes discovery passed over (discover-known.h). */
#include "discover-known.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

void known_init(struct known *k)
{
	*k = (struct known){ 0 };
	hashtab_init(&k->table, sizeof(struct known_slot));
}

static void slot_drop_fd(struct known *k, struct known_slot *s)
{
	if (s->statm_fd >= 0) {
		close(s->statm_fd);
		k->fds--;
	}
	s->statm_fd = -1;
}

void known_done(struct known *k)
{
	for (size_t i = 0; i < hashtab_slots(&k->table); i++) {
		struct known_slot *s = hashtab_at(&k->table, i);
		if (s)
			slot_drop_fd(k, s);
	}
	hashtab_done(&k->table);
	k->dirty = 0;
}

struct known_slot *known_get(const struct known *k, int pid)
{
	return hashtab_get(&k->table, (uint64_t)pid);
}

struct known_slot *known_set(struct known *k, int pid, enum known_kind kind)
{
	bool is_new;
	struct known_slot *s = hashtab_upsert(&k->table, (uint64_t)pid, &is_new);

	if (!s)
		return NULL;
	if (is_new) {
		s->statm_fd = -1;
		s->kind = (uint8_t)kind;
	} else if (s->kind == KNOWN_DIRTY)
		k->dirty--;
	if (kind != KNOWN_SMALL)
		slot_drop_fd(k, s);
	s->kind = (uint8_t)kind;
	if (kind == KNOWN_DIRTY)
		k->dirty++;
	return s;
}

bool known_remove(struct known *k, int pid)
{
	struct known_slot s;

	if (!hashtab_remove(&k->table, (uint64_t)pid, &s))
		return false;
	if (s.kind == KNOWN_DIRTY)
		k->dirty--;
	slot_drop_fd(k, &s);
	return true;
}

/* statm in pages fits 32 bits up to 16 TiB of 4 KiB pages; past that the
 * figure saturates and a change above it goes unseen until the next full
 * pass */
static uint32_t pages32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void known_keep_statm(struct known *k, struct known_slot *s, int fd, const struct proc_statm *statm)
{
	if (fd != s->statm_fd) {
		slot_drop_fd(k, s);
		s->statm_fd = fd;
		if (fd >= 0)
			k->fds++;
	}
	s->size = pages32(statm->size);
	s->resident = pages32(statm->resident);
	s->shared = pages32(statm->shared);
}

void known_seen(struct known_slot *s, uint32_t listing)
{
	s->seen = listing;
}

bool known_statm_same(const struct known_slot *s, const struct proc_statm *statm)
{
	return s->size == pages32(statm->size) && s->resident == pages32(statm->resident) &&
	       s->shared == pages32(statm->shared);
}

size_t known_count(const struct known *k)
{
	return k->table.count;
}

size_t known_bytes(const struct known *k)
{
	return hashtab_bytes(&k->table);
}

int known_pids(const struct known *k, unsigned kinds, int **ret, size_t *ret_n)
{
	int *pids = NULL;
	size_t n = 0;

	for (size_t i = 0; i < hashtab_slots(&k->table); i++) {
		struct known_slot *s = hashtab_at(&k->table, i);
		if (!s || !(kinds & (1u << s->kind)))
			continue;
		if (!pids) {
			pids = malloc(known_count(k) * sizeof(*pids));
			if (!pids)
				return -ENOMEM;
		}
		pids[n++] = (int)s->pid;
	}
	*ret = pids;
	*ret_n = n;
	return 0;
}

size_t known_sweep(struct known *k, uint32_t seen)
{
	size_t gone = 0;

	/* a removal shifts later slots back: look at the same index again */
	for (size_t i = 0; i < hashtab_slots(&k->table);) {
		struct known_slot *s = hashtab_at(&k->table, i);
		if (s && s->seen != seen) {
			(void)known_remove(k, (int)s->pid);
			gone++;
			continue;
		}
		i++;
	}
	return gone;
}
