/* mapfiles: a process that maps and unmaps data files on command, for the
 * tests of region events and their memtrace export.
 *
 *   mapfiles DIR
 *
 * Reads one command per line on standard input and answers each with one
 * JSON line on standard output once it is done:
 *   file    creates DIR/data-N (32 MiB), maps it and reads it through
 *           (mapped_files, resident), keeps it mapped
 *           → {"file": "DIR/data-N", "start": "0x...", "bytes": N}
 *   unmap   unmaps every data file it mapped → {"unmapped": N}
 *   anon    maps 64 MiB of anonymous memory and touches it (other), keeps it
 *           → {"anon": "0x...", "bytes": N}
 * Prints "ready" first; exits when standard input closes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1024u * 1024u)
#define FILE_SIZE (32u * MiB)
#define ANON_SIZE (64u * MiB)
#define FILES_MAX 64

static void die(const char *what)
{
	fprintf(stderr, "mapfiles: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long page;
static unsigned files_made;
static struct {
	void *p;
	size_t len;
} mapped[FILES_MAX];
static unsigned n_mapped;

static void map_file(const char *dir)
{
	char path[4096], block[64 * 1024];
	volatile const char *p;
	unsigned long sum = 0;
	int fd;

	if (n_mapped == FILES_MAX)
		die("too many files");
	snprintf(path, sizeof(path), "%s/data-%u", dir, files_made++);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("open data file");
	memset(block, 7, sizeof(block));
	for (size_t done = 0; done < FILE_SIZE; done += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			die("write data file");
	p = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap data file");
	close(fd);
	for (size_t i = 0; i < FILE_SIZE; i += (size_t)page)
		sum += (unsigned long)p[i];
	mapped[n_mapped].p = (void *)p;
	mapped[n_mapped++].len = FILE_SIZE;
	printf("{\"file\": \"%s\", \"start\": \"0x%jx\", \"bytes\": %u, \"sum\": %lu}\n", path,
	       (uintmax_t)(uintptr_t)p, FILE_SIZE, sum);
}

static void unmap_files(void)
{
	unsigned n = n_mapped;
	while (n_mapped > 0) {
		n_mapped--;
		if (munmap(mapped[n_mapped].p, mapped[n_mapped].len) < 0)
			die("munmap");
	}
	printf("{\"unmapped\": %u}\n", n);
}

static void anon(void)
{
	char *p = mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap anonymous");
	for (size_t i = 0; i < ANON_SIZE; i += (size_t)page)
		p[i] = 1;
	printf("{\"anon\": \"0x%jx\", \"bytes\": %u}\n", (uintmax_t)(uintptr_t)p, ANON_SIZE);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char line[64];

	page = sysconf(_SC_PAGESIZE);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (strcmp(line, "file\n") == 0)
			map_file(dir);
		else if (strcmp(line, "unmap\n") == 0)
			unmap_files();
		else if (strcmp(line, "anon\n") == 0)
			anon();
		else
			printf("{\"error\": \"unknown command\"}\n");
		fflush(stdout);
	}
	return 0;
}
