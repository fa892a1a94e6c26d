/* The steady helper: a process that holds still until told to change its
 * memory in one way, for the tests of the daemon's steady census.
 *
 *   steady [MANY]
 *
 * Maps three anonymous regions and touches them: "work", 16 pages of
 * which the first 15 are written; "spare", 4 pages never written; "moved",
 * 4 pages written; with MANY, that many regions more of one page each,
 * written, every other one read-only so that none merge (a process with
 * many more anonymous mappings than file ones).  Prints "ready" and then, for each line read from
 * standard input, does it and prints "done LINE":
 *
 *   nop      nothing: a first command brings in the pages of the code that
 *            reads and answers one, so later ones change only what they say
 *   touch    writes the last page of work: one page of one region
 *   map      maps a new region of one page and writes it
 *   unmap    unmaps that region again
 *   protect  makes spare read-only: a mapping changes, no total does
 *   move     moves moved elsewhere (mremap): the same pages, another address
 *   fork     maps "shared", 512 pages, writes them, and forks a child that
 *            sleeps: their pages are then shared with it
 *   reap     kills that child and waits for it: the pages it shared are
 *            this process's own again, with no change of this process's
 *            address space or resident counters (the kernel fires no event
 *            of it: what the daemon's change watch cannot see)
 *
 * The regions stay reachable from volatile globals. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char *volatile work, *volatile spare, *volatile moved, *volatile extra, *volatile shared;
static pid_t child = -1;
static long page;

static char *map_pages(long n)
{
	char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* A free range of n pages, away from the others, to move to. */
static char *free_range(long n)
{
	char *p = map_pages(n + 2);
	munmap(p, (size_t)((n + 2) * page));
	return p + page;
}

int main(int argc, char **argv)
{
	char line[64];
	long many = argc > 1 ? atol(argv[1]) : 0;

	page = sysconf(_SC_PAGESIZE);
	/* every call a command makes, once on a scratch region first: the
	 * C library's pages they run from are then in (the kernel maps 64 KiB
	 * of a file around a fault), and a command changes only what it says */
	char *scratch = map_pages(2), *dest = free_range(2);
	scratch[0] = 1;
	mprotect(scratch, (size_t)page, PROT_READ);
	scratch = mremap(scratch, (size_t)(2 * page), (size_t)(2 * page), MREMAP_MAYMOVE | MREMAP_FIXED, dest);
	if (scratch != MAP_FAILED)
		munmap(scratch, (size_t)(2 * page));
	work = map_pages(16);
	memset(work, 1, (size_t)(15 * page));
	spare = map_pages(4);
	moved = map_pages(4);
	memset(moved, 2, (size_t)(4 * page));
	if (many > 0) {
		char *volatile base = map_pages(many);
		for (long i = 0; i < many; i++) {
			base[i * page] = 1;
			if (i % 2 && mprotect(base + i * page, (size_t)page, PROT_READ) < 0) {
				perror("mprotect");
				return 1;
			}
		}
	}
	printf("ready\n");
	fflush(stdout);
	/* each command waits in poll(), where the tests see it idle */
	for (struct pollfd in = { .fd = 0, .events = POLLIN }; poll(&in, 1, -1) >= 0 && fgets(line, sizeof(line), stdin);) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "nop") == 0)
			;
		else if (strcmp(line, "touch") == 0)
			work[15 * page] = 1;
		else if (strcmp(line, "map") == 0) {
			extra = map_pages(1);
			extra[0] = 1;
		} else if (strcmp(line, "unmap") == 0) {
			munmap(extra, (size_t)page);
			extra = NULL;
		} else if (strcmp(line, "protect") == 0) {
			if (mprotect(spare, (size_t)(4 * page), PROT_READ) < 0)
				perror("mprotect");
		} else if (strcmp(line, "move") == 0) {
			char *to = free_range(4);
			char *p = mremap(moved, (size_t)(4 * page), (size_t)(4 * page), MREMAP_MAYMOVE | MREMAP_FIXED, to);
			if (p == MAP_FAILED)
				perror("mremap");
			else
				moved = p;
		} else if (strcmp(line, "fork") == 0 && child < 0) {
			shared = map_pages(512);
			memset(shared, 3, (size_t)(512 * page));
			fflush(stdout);
			child = fork();
			if (child == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL); /* gone with this process */
				for (;;)
					pause();
			}
			if (child < 0)
				perror("fork");
		} else if (strcmp(line, "reap") == 0 && child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			child = -1;
		} else {
			printf("unknown %s\n", line);
			fflush(stdout);
			continue;
		}
		printf("done %s\n", line);
		fflush(stdout);
	}
	return 0;
}
