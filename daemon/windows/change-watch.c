/* The change watch (change-watch.h) on Windows: there is none (the
 * kernel's events are Linux's BPF), so the fast tier reads every watched
 * process every round, from its one snapshot, which costs about what a
 * watch would save. */
#include "change-watch.h"

#include <errno.h>
#include <stddef.h>

int change_watch_new(uint32_t capacity, struct change_watch **ret)
{
	(void)capacity;
	(void)ret;
	return -EOPNOTSUPP;
}

/* The others are never called without a watch. */
struct change_watch *change_watch_free(struct change_watch *w)
{
	(void)w;
	return NULL;
}

uint32_t change_watch_add(struct change_watch *w, int pid)
{
	(void)w;
	(void)pid;
	return 0;
}

void change_watch_remove(struct change_watch *w, int pid, uint32_t index)
{
	(void)w;
	(void)pid;
	(void)index;
}

unsigned change_watch_take(struct change_watch *w, uint32_t index, unsigned bits)
{
	(void)w;
	(void)index;
	(void)bits;
	return 0;
}

bool change_watch_sees_mappings(const struct change_watch *w)
{
	(void)w;
	return false;
}

void change_watch_raise(struct change_watch *w, uint32_t index, unsigned bits)
{
	(void)w;
	(void)index;
	(void)bits;
}

uint32_t change_watch_count(const struct change_watch *w)
{
	(void)w;
	return 0;
}

uint32_t change_watch_room(const struct change_watch *w)
{
	(void)w;
	return 0;
}
