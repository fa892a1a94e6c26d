/* Reading a stand-in script (see script.h for its directives). */
#include "script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int bad(const char *path, int line, const char *what)
{
	fprintf(stderr, "stand-in: %s:%d: %s\n", path, line, what);
	return -1;
}

/* A number, or "na" (all ones: NVML_VALUE_NOT_AVAILABLE). */
static int number(const char *word, unsigned long long *ret)
{
	char *end;
	if (!word)
		return -1;
	if (strcmp(word, "na") == 0) {
		*ret = ~0ull;
		return 0;
	}
	*ret = strtoull(word, &end, 10);
	return *end ? -1 : 0;
}

/* "3" is GPU 3, "m1" the second MIG instance; the index in devices or -1. */
static int device_ref(const struct standin_script *s, const char *word)
{
	unsigned long long v;
	if (!word)
		return -1;
	if (word[0] == 'm') {
		if (number(word + 1, &v) < 0 || s->n_gpus + v >= s->n_devices)
			return -1;
		return (int)(s->n_gpus + v);
	}
	if (number(word, &v) < 0 || v >= s->n_gpus)
		return -1;
	return (int)v;
}

/* The rest of a line after n words, without its newline. */
static const char *rest(char *line, int n)
{
	char *p = line;
	for (int i = 0; i < n; i++) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t");
	}
	p += strspn(p, " \t");
	p[strcspn(p, "\n")] = '\0';
	return p;
}

static int add_device(struct standin_script *s, char *copy, int parent)
{
	struct standin_device *d;
	char *uuid = strtok(NULL, " \t\n");
	char *total = strtok(NULL, " \t\n"), *used = strtok(NULL, " \t\n");
	if (s->n_devices == STANDIN_DEVICES_MAX || !uuid)
		return -1;
	d = &s->devices[s->n_devices];
	memset(d, 0, sizeof(*d));
	if (number(total, &d->total) < 0 || number(used, &d->used) < 0)
		return -1;
	snprintf(d->uuid, sizeof(d->uuid), "%s", uuid);
	snprintf(d->name, sizeof(d->name), "%s", rest(copy, parent < 0 ? 4 : 5));
	d->parent = parent;
	d->lost_after = -1;
	s->n_devices++;
	return 0;
}

int standin_load(struct standin_script *s)
{
	const char *path = getenv("RAMWATCH_STANDIN_SCRIPT");
	char line[1024], copy[1024];
	int n = 0;
	FILE *f;

	standin_free(s);
	s->cuda_version = 12040;
	if (!path || !*path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		perror(path);
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		s->dev = (unsigned long long)st.st_dev;
		s->ino = (unsigned long long)st.st_ino;
		s->size = (unsigned long long)st.st_size;
		s->mtime_ns = (unsigned long long)st.st_mtim.tv_sec * 1000000000ull + (unsigned long long)st.st_mtim.tv_nsec;
	}
	while (fgets(line, sizeof(line), f)) {
		char *word, *hash = strchr(line, '#');
		unsigned long long a, b;
		n++;
		if (hash)
			*hash = '\0';
		memcpy(copy, line, sizeof(line));
		word = strtok(line, " \t\n");
		if (!word)
			continue;
		if (strcmp(word, "device") == 0) {
			if (s->n_devices > s->n_gpus)
				goto fail; /* GPUs come before MIG instances */
			if (add_device(s, copy, -1) < 0)
				goto fail;
			s->n_gpus++;
		} else if (strcmp(word, "mig") == 0) {
			int gpu = device_ref(s, strtok(NULL, " \t\n"));
			if (gpu < 0 || add_device(s, copy, gpu) < 0)
				goto fail;
		} else if (strcmp(word, "compute") == 0 || strcmp(word, "graphics") == 0) {
			bool graphics = word[0] == 'g';
			int dev = device_ref(s, strtok(NULL, " \t\n"));
			struct standin_process *p;
			if (dev < 0 || number(strtok(NULL, " \t\n"), &a) < 0 || number(strtok(NULL, " \t\n"), &b) < 0)
				goto fail;
			p = realloc(s->processes, (s->n_processes + 1) * sizeof(*p));
			if (!p)
				goto fail;
			s->processes = p;
			s->processes[s->n_processes++] =
				(struct standin_process){ .device = dev, .pid = (unsigned)a, .used = b, .graphics = graphics };
		} else if (strcmp(word, "lost") == 0) {
			int dev = device_ref(s, strtok(NULL, " \t\n"));
			if (dev < 0 || number(strtok(NULL, " \t\n"), &a) < 0)
				goto fail;
			s->devices[dev].lost_after = (long)a;
		} else if (strcmp(word, "fail") == 0) {
			char *function = strtok(NULL, " \t\n");
			if (!function || s->n_fails == STANDIN_FAILS_MAX || number(strtok(NULL, " \t\n"), &a) < 0)
				goto fail;
			snprintf(s->fails[s->n_fails].function, sizeof(s->fails[0].function), "%s", function);
			s->fails[s->n_fails++].code = (int)a;
		} else if (strcmp(word, "insufficient") == 0) {
			if (number(strtok(NULL, " \t\n"), &a) < 0)
				goto fail;
			s->insufficient = (unsigned)a;
		} else if (strcmp(word, "cuda-version") == 0) {
			if (number(strtok(NULL, " \t\n"), &a) < 0)
				goto fail;
			s->cuda_version = (int)a;
		} else if (strcmp(word, "init-delay") == 0) {
			if (number(strtok(NULL, " \t\n"), &a) < 0 || a > 60000)
				goto fail;
			s->init_delay_ms = (unsigned)a;
		} else
			goto fail;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	return bad(path, n, "not a stand-in directive (see tests/gpu-standin/script.h)");
}

void standin_free(struct standin_script *s)
{
	free(s->processes);
	memset(s, 0, sizeof(*s));
}

int standin_reload(struct standin_script *s)
{
	const char *path = getenv("RAMWATCH_STANDIN_SCRIPT");
	struct stat st;

	if (!path || !*path || stat(path, &st) < 0)
		return 0;
	if ((unsigned long long)st.st_dev == s->dev && (unsigned long long)st.st_ino == s->ino &&
	    (unsigned long long)st.st_size == s->size &&
	    (unsigned long long)st.st_mtim.tv_sec * 1000000000ull + (unsigned long long)st.st_mtim.tv_nsec == s->mtime_ns)
		return 0;
	return standin_load(s) < 0 ? -1 : 1;
}

int standin_fail(const struct standin_script *s, const char *function)
{
	for (size_t i = 0; i < s->n_fails; i++)
		if (strcmp(s->fails[i].function, function) == 0)
			return s->fails[i].code;
	return 0;
}

void standin_log(const char *function)
{
	const char *path = getenv("RAMWATCH_STANDIN_LOG");
	FILE *f = path && *path ? fopen(path, "ae") : NULL;
	if (f) {
		fprintf(f, "%s\n", function);
		fclose(f);
	}
}

bool standin_lost(const struct standin_script *s, const struct standin_device *d)
{
	if (d->parent >= 0)
		d = &s->devices[d->parent];
	return d->lost_after >= 0 && d->memory_calls > (unsigned long)d->lost_after;
}
