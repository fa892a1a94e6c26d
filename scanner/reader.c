/* Chunked reading with an optional read-ahead thread.
 *
 * seq_file hands out at most a page per read() whatever the buffer size, so
 * a chunk is filled by several reads.  The helper thread fills a ring of
 * chunks; the caller consumes them in order.  One mutex and one condition
 * variable guard the ring: a hand-over per 256 KiB costs nothing next to
 * the kernel's work of producing it. */
#include "reader.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"
#include "macro.h"
#include "util.h"

#define RING_SLOTS 4

/* Fills buf with up to size bytes: several reads, until full or at the end.
 * Returns the bytes read or -errno. */
static ssize_t fill(int fd, char *buf, size_t size)
{
	size_t len = 0;
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return (ssize_t)len;
}

struct slot {
	char *buf;
	ssize_t len; /* bytes, 0 at the end, -errno; valid when full */
	bool full;
};

struct ring {
	int fd;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct slot slots[RING_SLOTS];
	bool stop; /* the consumer gave up */
	uint64_t cpu_us;
};

static void *read_ahead(void *userdata)
{
	struct ring *ring = userdata;
	size_t head = 0;

	for (;;) {
		struct slot *s = &ring->slots[head];
		pthread_mutex_lock(&ring->lock);
		while (s->full && !ring->stop)
			pthread_cond_wait(&ring->changed, &ring->lock);
		bool stop = ring->stop;
		pthread_mutex_unlock(&ring->lock);
		if (stop)
			break;

		ssize_t n = fill(ring->fd, s->buf, RW_SMAPS_READ_SIZE);

		pthread_mutex_lock(&ring->lock);
		s->len = n;
		s->full = true;
		pthread_cond_broadcast(&ring->changed);
		pthread_mutex_unlock(&ring->lock);
		if (n < (ssize_t)RW_SMAPS_READ_SIZE) /* the end, or an error */
			break;
		head = (head + 1) % RING_SLOTS;
	}
	ring->cpu_us = now_thread_cpu_us();
	return NULL;
}

static int consume_ring(struct ring *ring, int (*consume)(void *, const char *, size_t), void *userdata,
			uint64_t *bytes)
{
	size_t tail = 0;
	for (;;) {
		struct slot *s = &ring->slots[tail];
		pthread_mutex_lock(&ring->lock);
		while (!s->full)
			pthread_cond_wait(&ring->changed, &ring->lock);
		ssize_t n = s->len;
		pthread_mutex_unlock(&ring->lock);

		if (n < 0)
			return (int)n;
		if (n > 0) {
			*bytes += (uint64_t)n;
			int r = consume(userdata, s->buf, (size_t)n);
			if (r < 0)
				return r;
		}
		if (n < (ssize_t)RW_SMAPS_READ_SIZE)
			return 0;
		pthread_mutex_lock(&ring->lock);
		s->full = false;
		pthread_cond_broadcast(&ring->changed);
		pthread_mutex_unlock(&ring->lock);
		tail = (tail + 1) % RING_SLOTS;
	}
}

/* Starts the read-ahead, then consumes first (the chunk already read) and
 * the ring.  Returns -EAGAIN, having consumed nothing, when no thread
 * could be made. */
static int read_overlapped(int fd, const char *first, size_t first_len,
			   int (*consume)(void *, const char *, size_t), void *userdata,
			   struct chunked_read_result *res)
{
	struct ring ring = { .fd = fd };
	pthread_t thread;
	sigset_t all, saved;
	int r;

	for (size_t i = 0; i < RING_SLOTS; i++) {
		ring.slots[i].buf = malloc(RW_SMAPS_READ_SIZE);
		if (!ring.slots[i].buf) {
			r = -ENOMEM;
			goto out;
		}
	}
	pthread_mutex_init(&ring.lock, NULL);
	pthread_cond_init(&ring.changed, NULL);
	/* the helper takes no signals: they stay with the caller's thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	r = -pthread_create(&thread, NULL, read_ahead, &ring);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (r < 0)
		goto out_sync;

	r = consume(userdata, first, first_len);
	if (r >= 0)
		r = consume_ring(&ring, consume, userdata, &res->bytes);

	pthread_mutex_lock(&ring.lock);
	ring.stop = true;
	pthread_cond_broadcast(&ring.changed);
	pthread_mutex_unlock(&ring.lock);
	pthread_join(thread, NULL);
	res->helper_cpu_us = ring.cpu_us;
	res->overlapped = true;
out_sync:
	pthread_cond_destroy(&ring.changed);
	pthread_mutex_destroy(&ring.lock);
out:
	for (size_t i = 0; i < RING_SLOTS; i++)
		free(ring.slots[i].buf);
	return r;
}

int chunked_read(int fd, bool overlap, int (*consume)(void *userdata, const char *buf, size_t len),
		 void *userdata, struct chunked_read_result *ret)
{
	struct chunked_read_result res = { 0 };
	_cleanup_free_ char *buf = malloc(RW_SMAPS_READ_SIZE);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	/* the first chunk here: most processes fit in it, and need no thread */
	ssize_t n = fill(fd, buf, RW_SMAPS_READ_SIZE);
	if (n < 0) {
		r = (int)n;
		goto done;
	}
	res.bytes = (uint64_t)n;
	if (n == (ssize_t)RW_SMAPS_READ_SIZE && overlap) {
		r = read_overlapped(fd, buf, (size_t)n, consume, userdata, &res);
		if (r != -EAGAIN)
			goto done;
		/* no thread could be made: read here */
	}
	if (n > 0 && (r = consume(userdata, buf, (size_t)n)) < 0)
		goto done;
	if (n < (ssize_t)RW_SMAPS_READ_SIZE)
		goto done;
	for (;;) {
		n = fill(fd, buf, RW_SMAPS_READ_SIZE);
		if (n < 0) {
			r = (int)n;
			break;
		}
		res.bytes += (uint64_t)n;
		if (n > 0 && (r = consume(userdata, buf, (size_t)n)) < 0)
			break;
		if (n < (ssize_t)RW_SMAPS_READ_SIZE)
			break;
	}
done:
	if (ret)
		*ret = res;
	return r;
}
