/* pid -> pointer in the common hash table (common/hashtab.h), keyed by
 * the pid itself. */
#include "pidmap.h"

#include <errno.h>
#include <stdint.h>

struct pidmap_slot {
	uint64_t pid;
	void *value;
};

void *pidmap_get(const struct pidmap *m, int pid)
{
	const struct pidmap_slot *s = pid > 0 ? hashtab_get(&m->table, (uint64_t)pid) : NULL;

	return s ? s->value : NULL;
}

int pidmap_put(struct pidmap *m, int pid, void *value)
{
	struct pidmap_slot *s;
	bool is_new;

	if (pid <= 0)
		return -EINVAL;
	/* a map of all zeroes is empty: the table learns its slot size here */
	if (m->table.slot_size == 0)
		hashtab_init(&m->table, sizeof(struct pidmap_slot));
	if (!(s = hashtab_upsert(&m->table, (uint64_t)pid, &is_new)))
		return -ENOMEM;
	s->value = value;
	return 0;
}

void *pidmap_remove(struct pidmap *m, int pid)
{
	struct pidmap_slot s;

	if (pid <= 0 || !hashtab_remove(&m->table, (uint64_t)pid, &s))
		return NULL;
	return s.value;
}

void pidmap_done(struct pidmap *m)
{
	hashtab_done(&m->table);
}

int pidmap_next(const struct pidmap *m, size_t *i, void **ret)
{
	for (; *i < hashtab_slots(&m->table); (*i)++) {
		const struct pidmap_slot *s = hashtab_at(&m->table, *i);
		if (s) {
			*ret = s->value;
			(*i)++;
			return 1;
		}
	}
	return 0;
}
