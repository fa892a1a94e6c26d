/* The kernel's log as a source of OOM kills (kmsg-source.h). */
#include "kmsg-source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A record is at most about 1 KiB of text (the kernel's LOG_LINE_MAX,
 * escaped up to four times) plus its dictionary; a read with a buffer too
 * small fails with EINVAL and the record is passed over. */
#define RECORD_MAX 8192

struct kmsg_source {
	int fd;
	kmsg_source_kill_t fn;
	void *userdata;
	struct oom_kmsg oom;
	struct kmsg_source_stats stats;
	char buf[RECORD_MAX];
};

int kmsg_source_open(const char *path, kmsg_source_kill_t fn, void *userdata, struct kmsg_source **ret)
{
	struct kmsg_source *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = open(path ? path : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		int r = -errno;
		free(s);
		return r;
	}
	/* only what comes from now on: what came before is history, and a
	 * kill in it was counted, not told, by the counters */
	lseek(s->fd, 0, SEEK_END);
	s->fn = fn;
	s->userdata = userdata;
	oom_kmsg_init(&s->oom);
	*ret = s;
	return 0;
}

struct kmsg_source *kmsg_source_free(struct kmsg_source *s)
{
	if (!s)
		return NULL;
	close(s->fd);
	free(s);
	return NULL;
}

int kmsg_source_fd(const struct kmsg_source *s)
{
	return s->fd;
}

int kmsg_source_read(struct kmsg_source *s, unsigned max_records)
{
	unsigned n = 0;

	while (n < max_records) {
		ssize_t got = read(s->fd, s->buf, sizeof(s->buf));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/* overwritten before we read them; the next read
				 * goes on from the oldest record left */
				s->stats.lost++;
				continue;
			}
			if (errno == EINVAL) {
				s->stats.bad_lines++;
				snprintf(s->stats.last_bad, sizeof(s->stats.last_bad),
					 "a kernel log record longer than %d bytes", RECORD_MAX);
				continue;
			}
			break; /* EAGAIN: nothing more for now */
		}
		if (got == 0)
			break;
		n++;
		s->stats.records++;
		struct kmsg_record r;
		struct oom_kmsg_kill k;
		char why[sizeof(s->stats.last_bad)];
		if (kmsg_record_parse(s->buf, (size_t)got, &r, why, sizeof(why)) < 0) {
			s->stats.bad_lines++;
			memcpy(s->stats.last_bad, why, sizeof(why));
			continue;
		}
		/* the kernel's own lines only: a line a program writes into
		 * /dev/kmsg never has facility 0, whatever prefix it gives */
		if (r.facility != 0)
			continue;
		int e = oom_kmsg_feed(&s->oom, &r, &k, why, sizeof(why));
		if (e < 0) {
			s->stats.bad_lines++;
			memcpy(s->stats.last_bad, why, sizeof(why));
		} else if (e == 1 && (e = s->fn(s->userdata, &k)) < 0)
			return e;
	}
	return (int)n;
}

void kmsg_source_stats(const struct kmsg_source *s, struct kmsg_source_stats *ret)
{
	*ret = s->stats;
}
