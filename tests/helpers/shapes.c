/* The ground-truth helper: a process that builds memory of known shapes and
 * says what it built, so tests can check that each shape lands in its class.
 *
 *   shapes [DIR]
 *
 * Prints one JSON object per line for each shape:
 *   {"shape": "...", "class": "...", "start": "0x...", "end": "0x...", "bytes": N}
 * where [start, end) lies inside the memory built and bytes were touched
 * (made resident), then "ready".  DIR holds the data file (default /tmp).
 *
 * SIGUSR1 grows it: 64 MiB more anonymous memory, touched, reported as a
 * "growth" shape.  SIGUSR2 makes a short spike: 128 MiB touched, held for
 * half a second, released, reported as "spike".  It exits when its standard
 * input closes or on SIGTERM. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

#define MiB (1024u * 1024u)

static long page;

static void report(const char *shape, const char *cls, const void *start, size_t len, size_t touched)
{
	printf("{\"shape\": \"%s\", \"class\": \"%s\", \"start\": \"0x%jx\", \"end\": \"0x%jx\", \"bytes\": %zu}\n",
	       shape, cls, (uintmax_t)(uintptr_t)start, (uintmax_t)((uintptr_t)start + len), touched);
	fflush(stdout);
}

static void die(const char *what)
{
	fprintf(stderr, "shapes: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void touch(volatile char *p, size_t len)
{
	for (size_t i = 0; i < len; i += (size_t)page)
		p[i] = 1;
}

static void data_file(const char *dir)
{
	char path[4096];
	size_t len = 8 * MiB;
	snprintf(path, sizeof(path), "%s/ramwatch-shapes-%d.data", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("data file");
	char *buf = malloc(MiB);
	memset(buf, 7, MiB);
	for (size_t i = 0; i < len; i += MiB)
		if (write(fd, buf, MiB) != (ssize_t)MiB)
			die("write data file");
	free(buf);
	fsync(fd);
	volatile char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap data file");
	close(fd);
	unlink(path); /* nothing left behind: the mapping shows "(deleted)" */
	unsigned sum = 0;
	for (size_t i = 0; i < len; i += (size_t)page)
		sum += (unsigned char)p[i];
	(void)sum;
	report("data_file", "mapped_files", (const void *)p, len, len);
	printf("{\"shape\": \"data_file_path\", \"path\": \"%s (deleted)\"}\n", path);
}

static void memfd(void)
{
	size_t len = 4 * MiB;
	int fd = memfd_create("ramwatch-shapes", 0);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
		die("memfd");
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap memfd");
	touch(p, len);
	report("memfd", "shared", p, len, len);
}

static void posix_shm(void)
{
	char name[64];
	size_t len = 2 * MiB;
	snprintf(name, sizeof(name), "/ramwatch-shapes-%d", (int)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
		die("shm_open");
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap shm");
	shm_unlink(name); /* the mapping stays, as "/dev/shm/NAME (deleted)" */
	touch(p, len);
	report("posix_shm", "shared", p, len, len);
}

static void shared_anonymous(void)
{
	size_t len = 3 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap shared anonymous");
	touch(p, len);
	report("shared_anonymous", "shared", p, len, len);
}

static void large_malloc(void)
{
	size_t len = 48 * MiB;
	char *p = malloc(len); /* above the mmap threshold: its own mapping */
	if (!p)
		die("malloc");
	memset(p, 3, len);
	report("large_malloc", "malloc", p, len, len); /* a glibc chunk: its header says so */
}

static void brk_heap(void)
{
	/* small blocks come from the main arena, the brk heap */
	char *first = NULL;
	for (size_t i = 0; i < 6 * MiB / 256; i++) {
		char *q = malloc(200);
		if (!q)
			die("malloc");
		memset(q, 1, 200);
		if (!first)
			first = q;
	}
	report("brk_heap", "malloc", first, 1, 0);
}

static void named(void)
{
	size_t len = 2 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap named");
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, len, (unsigned long)"ramwatch-shape") < 0) {
		printf("{\"shape\": \"named\", \"unsupported\": \"%s\"}\n", strerror(errno));
		return;
	}
	touch(p, len);
	report("named", "named", p, len, len);
}

static void jit(void)
{
	size_t len = 1 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap rwx");
	touch(p, len);
	report("jit", "jit", p, len, len);
}

static void locked(void)
{
	size_t len = 1 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap locked");
	touch(p, len);
	if (mlock(p, len) < 0) {
		printf("{\"shape\": \"locked\", \"unsupported\": \"%s\"}\n", strerror(errno));
		return;
	}
	report("locked", "other", p, len, len);
}

/* A reserving allocator's arena: 64 GiB of address space, 2 MiB used, at
 * an address of its own so that no neighbour joins the run. */
static void reservation(void)
{
	size_t len = 64ull * 1024 * MiB, used = 2 * MiB;
	void *hint = (void *)0x100000000000ull;
	char *p = mmap(hint, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		       -1, 0);
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		die("mmap reservation");
	if (mprotect(p, used, PROT_READ | PROT_WRITE) < 0)
		die("mprotect reservation");
	touch(p, used);
	report("reservation", "mmgp_ram", p, len, used);
}

/* Threads: each waits in a system call (so its stack pointer can be read)
 * after mallocing from an arena of its own. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_attr_t attr;
	void *stack;
	size_t stack_size;
	/* enough small blocks that the thread's arena is certainly its own */
	char *block = NULL;
	for (int i = 0; i < 2000; i++) {
		char *q = malloc(500);
		memset(q, 2, 500);
		if (!block)
			block = q;
	}
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &stack, &stack_size);
	pthread_attr_destroy(&attr);
	flockfile(stdout);
	report("thread_stack", "stacks", (char *)stack + page, stack_size - (size_t)page, 0);
	report("thread_arena", "malloc", block, 1, 0);
	funlockfile(stdout);
	pthread_barrier_wait(&barrier);
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&cond, &lock);
	return NULL;
}

static void threads(void)
{
	pthread_t t[2];
	pthread_barrier_init(&barrier, NULL, 3);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
			die("pthread_create");
	pthread_barrier_wait(&barrier);
}

static volatile sig_atomic_t grow_requests, spike_requests, stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		grow_requests++;
	else if (sig == SIGUSR2)
		spike_requests++;
	else
		stop = 1;
}

static void grow(void)
{
	size_t len = 64 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap growth");
	touch(p, len);
	report("growth", "other", p, len, len);
}

static void spike(void)
{
	size_t len = 128 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap spike");
	touch(p, len);
	report("spike", "other", p, len, len);
	usleep(500000);
	munmap(p, len);
	printf("{\"shape\": \"spike_released\"}\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;

	page = sysconf(_SC_PAGESIZE);
	/* the threads must not take the signals: block them before they start */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	data_file(dir);
	memfd();
	posix_shm();
	shared_anonymous();
	large_malloc();
	brk_heap();
	named();
	jit();
	locked();
	reservation();
	threads();

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int r = poll(&pfd, 1, -1);
		while (grow_requests > 0) {
			grow_requests--;
			grow();
		}
		while (spike_requests > 0) {
			spike_requests--;
			spike();
		}
		if (r > 0) {
			char c;
			if (read(STDIN_FILENO, &c, 1) <= 0)
				break; /* stdin closed: the test is done */
		}
	}
	return 0;
}
