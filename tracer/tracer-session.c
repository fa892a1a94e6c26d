/* A trace session: the configuration from the environment, the start
 * (before main, from the library's constructor), the stop (after main
 * and every atexit handler, from its destructor) and fork.
 *
 * Files: the first process that loads the tracer creates FILE (O_EXCL:
 * `ramwatch trace record` removed any old one); every other process writes
 * FILE.PID: a fork's child (its trace starts at the fork, with the
 * parent's open scopes entered again), and a program exec'd in the same
 * process, since exec ends the old image without its destructors (that
 * trace has no trace.stop and its last events are lost: the verdict says
 * missing_stop_event).  A process that ends in _exit or by a signal ends
 * its trace the same way. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"

struct tracer_config tracer_config;
_Atomic int tracer_state;
__thread struct tracer_thread tracer_self __attribute__((tls_model("initial-exec")));

void *tracer_pages(size_t bytes)
{
	long p = syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p < 0 && p > -4096 ? NULL : (void *)p;
}

void tracer_unpages(void *p, size_t bytes)
{
	syscall(SYS_munmap, p, bytes);
}

/* The coarse clock: its readers want milliseconds (a full ring's wait,
 * the writer's look at the mark file every few), and it is a read of the
 * vDSO's page whatever the clock source, where CLOCK_MONOTONIC may be a
 * system call on a virtual machine whose clock the vDSO cannot read. */
uint64_t tracer_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A decimal number from the environment, or def. */
static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	uint64_t v = 0;

	if (!s || !*s)
		return def;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > UINT64_MAX / 10 - 1)
			return def;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}

static bool env_copy(const char *name, char *dst, size_t size)
{
	const char *s = getenv(name);
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= size)
		return false;
	memcpy(dst, s, n + 1);
	return true;
}

/* The format asked for, or else the file's name says: JSON Lines for a
 * name ending in .jsonl or .json, the binary format for any other. */
static bool binary_format(const char *format, const char *file)
{
	size_t n = strlen(file);

	if (format && strcmp(format, "json") == 0)
		return false;
	if (format && strcmp(format, "binary") == 0)
		return true;
	if (n >= 6 && strcmp(file + n - 6, ".jsonl") == 0)
		return false;
	return !(n >= 5 && strcmp(file + n - 5, ".json") == 0);
}

static void configure(void)
{
	struct tracer_config *c = &tracer_config;
	uint64_t b = env_u64(TRACER_ENV_BUFFER, TRACER_BUFFER_DEFAULT);
	size_t bytes;

	c->min_bytes = env_u64(TRACER_ENV_MIN_BYTES, TRACER_MIN_BYTES_DEFAULT);
	c->stack = (unsigned)env_u64(TRACER_ENV_STACK, 1);
	if (c->stack < 1 || c->stack > TRACER_STACK_MAX)
		c->stack = 1;
	if (b < TRACER_BUFFER_MIN)
		b = TRACER_BUFFER_MIN;
	if (b > TRACER_BUFFER_MAX)
		b = TRACER_BUFFER_MAX;
	/* a ring holds a power of two of bytes */
	for (bytes = 1; bytes * 2 <= b; bytes *= 2)
		;
	c->buffer_bytes = bytes;
	c->wait_ns = env_u64(TRACER_ENV_WAIT, TRACER_WAIT_DEFAULT_US) * 1000u;
	env_copy(TRACER_ENV_SCOPE_ENV, c->scope_env, sizeof(c->scope_env));
	c->binary = binary_format(getenv(TRACER_ENV_FORMAT), c->file);
}

static void write_start(void)
{
	tracer_out_str("{\"v\":3,\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"trace.start\",\"producer\":\"ramwatch-trace " RAMWATCH_VERSION "\",\"pid\":");
	tracer_out_u64((uint64_t)getpid());
	tracer_out_str("}\n{\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"allocator\",\"allocator_id\":1,\"layer\":\"logical_allocator\","
		       "\"producer\":\"malloc\",\"retains_freed_memory\":false,\"min_bytes\":");
	tracer_out_u64(tracer_config.min_bytes);
	tracer_out_str(",\"stack\":");
	tracer_out_u64(tracer_config.stack);
	tracer_out_str(",\"sampled\":\"");
	if (tracer_config.min_bytes == 0)
		tracer_out_str("every call");
	else
		tracer_out_str("calls whose block has min_bytes or more one by one; smaller ones per site "
			       "and scope at the end, as one alloc with tracked false, len their bytes and "
			       "count their calls");
	tracer_out_str("\"}\n{\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"allocator\",\"allocator_id\":2,\"layer\":\"backing_boundary\","
		       "\"producer\":\"mmap\",\"sampled\":\"every mmap, munmap and mremap the program "
		       "calls, not the ones inside the C library's malloc\"}\n");
}

static int open_trace(bool first)
{
	char path[sizeof(tracer_config.file) + 24];
	char *p;
	uint64_t pid = (uint64_t)getpid();
	char digits[20];
	size_t n = 0;

	if (first && tracer_writer_open(tracer_config.file, true) == 0)
		return 0;
	strcpy(path, tracer_config.file);
	p = path + strlen(path);
	*p++ = '.';
	do {
		digits[n++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	while (n)
		*p++ = digits[--n];
	*p = 0;
	return tracer_writer_open(path, false);
}

static void fork_prepare(void)
{
	tracer_guard();
	tracer_scope_lock();
}

static void fork_parent(void)
{
	tracer_scope_unlock();
	tracer_unguard();
}

static void fork_child(void)
{
	tracer_scope_unlock();
	if (atomic_load(&tracer_state) == TRACER_ON) {
		tracer_ring_reset_child();
		tracer_writer_close_child();
		if (open_trace(false) < 0) {
			atomic_store(&tracer_state, TRACER_STOPPED);
			tracer_hooks_record(false);
		} else {
			tracer_ring_init(); /* a registration is the parent's memory's */
			write_start();
			tracer_scope_reopen();
			tracer_writer_start_thread();
		}
	}
	tracer_unguard();
}

void tracer_session_start(void)
{
	tracer_guard();
	if (!env_copy(TRACER_ENV_FILE, tracer_config.file, sizeof(tracer_config.file)))
		goto out;
	configure();
	if (tracer_stack_init() < 0)
		tracer_config.stack = 1;
	if (open_trace(true) < 0)
		goto out;
	tracer_ring_init();
	write_start();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atomic_store(&tracer_state, TRACER_ON);
	tracer_hooks_record(true);
	if (tracer_writer_start_thread() < 0) {
		/* no writer thread: the rings fill and drop until the end writes them */
	}
out:
	tracer_unguard();
}

static void write_small(struct tracer_small *t)
{
	tracer_small_write(t);
}

void tracer_session_stop(void)
{
	int on = TRACER_ON;

	if (atomic_load(&tracer_state) != TRACER_ON)
		return;
	tracer_guard();
	tracer_scope_close_all();
	tracer_unguard();
	if (!atomic_compare_exchange_strong(&tracer_state, &on, TRACER_STOPPED))
		return;
	tracer_hooks_record(false);
	tracer_guard();
	tracer_ring_quiesce();
	tracer_writer_join();
	/* drops no later record of their thread placed: a gap before the end */
	tracer_writer_skip(tracer_ring_unplaced());
	tracer_ring_each_small(write_small);
	tracer_stack_write();
	tracer_objects_write();
	tracer_out_str("{\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"trace.stop\",\"dropped\":");
	tracer_out_u64(tracer_ring_dropped());
	tracer_out_str("}\n");
	tracer_writer_close();
	tracer_unguard();
}
