/* The watched set (watched.h): a doubly linked list for the walks of the
 * tiers and a pid map for discovery's look-ups, always changed together. */
#include "watched.h"

#include <errno.h>
#include <stdlib.h>

#include "pidmap.h"
#include "target.h"

struct watched {
	struct target *first;
	struct pidmap by_pid;
	struct watched_counts counts;
};

struct watched *watched_new(void)
{
	return calloc(1, sizeof(struct watched));
}

struct watched *watched_free(struct watched *w)
{
	if (!w)
		return NULL;
	pidmap_done(&w->by_pid);
	free(w);
	return NULL;
}

bool watched_has_room(const struct watched *w, unsigned max)
{
	return w->counts.now < max;
}

int watched_add(struct watched *w, struct target *t, unsigned max)
{
	int r;

	if (pidmap_get(&w->by_pid, t->pid))
		return -EEXIST;
	if (!watched_has_room(w, max))
		return -ENOSPC;
	r = pidmap_put(&w->by_pid, t->pid, t);
	if (r < 0)
		return r;
	t->link.prev = NULL;
	t->link.next = w->first;
	if (w->first)
		w->first->link.prev = t;
	w->first = t;
	w->counts.now++;
	w->counts.followed++;
	return 0;
}

void watched_remove(struct watched *w, struct target *t, bool exited)
{
	pidmap_remove(&w->by_pid, t->pid);
	if (t->link.prev)
		t->link.prev->link.next = t->link.next;
	else
		w->first = t->link.next;
	if (t->link.next)
		t->link.next->link.prev = t->link.prev;
	t->link.prev = t->link.next = NULL;
	w->counts.now--;
	if (exited)
		w->counts.exited++;
	else
		w->counts.stopped++;
}

struct target *watched_find(const struct watched *w, int pid)
{
	return pidmap_get(&w->by_pid, pid);
}

struct target *watched_first(const struct watched *w)
{
	return w->first;
}

struct target *watched_next(const struct target *t)
{
	return t->link.next;
}

unsigned watched_count(const struct watched *w)
{
	return w->counts.now;
}

void watched_get_counts(const struct watched *w, struct watched_counts *ret)
{
	*ret = w->counts;
}
