/* pid -> pointer, open addressing, load kept at or under one half. */
#include "pidmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const struct pidmap *m, int pid)
{
	/* Fibonacci hashing spreads consecutive pids */
	return (size_t)(((uint64_t)(unsigned)pid * 11400714819323198485ull) >> 32) & (m->allocated - 1);
}

void *pidmap_get(const struct pidmap *m, int pid)
{
	if (m->allocated == 0 || pid <= 0)
		return NULL;
	for (size_t i = slot_of(m, pid);; i = (i + 1) & (m->allocated - 1)) {
		if (m->slots[i].pid == pid)
			return m->slots[i].value;
		if (m->slots[i].pid == 0)
			return NULL;
	}
}

static int grow(struct pidmap *m)
{
	size_t want = m->allocated ? m->allocated * 2 : 64;
	struct pidmap old = *m;
	struct pidmap_slot *slots = calloc(want, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	m->slots = slots;
	m->allocated = want;
	m->n = 0;
	for (size_t i = 0; i < old.allocated; i++)
		if (old.slots[i].pid)
			(void)pidmap_put(m, old.slots[i].pid, old.slots[i].value);
	free(old.slots);
	return 0;
}

int pidmap_put(struct pidmap *m, int pid, void *value)
{
	if (pid <= 0)
		return -EINVAL;
	if ((m->n + 1) * 2 > m->allocated) {
		int r = grow(m);
		if (r < 0)
			return r;
	}
	for (size_t i = slot_of(m, pid);; i = (i + 1) & (m->allocated - 1)) {
		if (m->slots[i].pid == pid) {
			m->slots[i].value = value;
			return 0;
		}
		if (m->slots[i].pid == 0) {
			m->slots[i] = (struct pidmap_slot){ pid, value };
			m->n++;
			return 0;
		}
	}
}

void *pidmap_remove(struct pidmap *m, int pid)
{
	size_t mask = m->allocated - 1, i;
	void *value;

	if (m->allocated == 0 || pid <= 0)
		return NULL;
	for (i = slot_of(m, pid);; i = (i + 1) & mask) {
		if (m->slots[i].pid == pid)
			break;
		if (m->slots[i].pid == 0)
			return NULL;
	}
	value = m->slots[i].value;
	m->slots[i].pid = 0;
	m->n--;
	/* backward-shift deletion: move later members of the run into the
	 * hole when their home slot allows, so lookups need no tombstones */
	for (size_t j = (i + 1) & mask; m->slots[j].pid; j = (j + 1) & mask) {
		size_t home = slot_of(m, m->slots[j].pid);
		/* j may move to i when home is not cyclically within (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].pid = 0;
			i = j;
		}
	}
	return value;
}

void pidmap_done(struct pidmap *m)
{
	free(m->slots);
	*m = (struct pidmap){ 0 };
}

int pidmap_next(const struct pidmap *m, size_t *i, void **ret)
{
	for (; *i < m->allocated; (*i)++)
		if (m->slots[*i].pid) {
			*ret = m->slots[(*i)++].value;
			return 1;
		}
	return 0;
}
