/* libFuzzer target: ramwatchd's configuration, as the loader reads it from
 * disk, drop-ins included (config.h), and the selectors of Watch= and
 * Ignore= (selector.h).  A configuration is written by root, but
 * "ramwatchd --check-config" is how people test what they wrote, and a
 * file half-saved by an editor is still read at a reload: the daemon must
 * refuse it with a message, never crash.
 *
 * The input is cut at NUL bytes (a configuration holds none): the first
 * piece is ramwatchd.conf, each next one a drop-in of ramwatchd.conf.d/
 * (up to MAX_DROPINS), written to a directory made once at start and
 * loaded with config_load.  The whole input, NULs included, is also
 * parsed as one text, and each piece as a selector.  What loads must
 * survive "ramwatchd --dump-config": its text parses back to the same
 * configuration, and a selector formatted back parses to the same
 * selector; a mismatch aborts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "selector.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DROPINS 4

static char dir[64], conf[96], dropins[96];

static void remove_all(void)
{
	char path[128];
	for (unsigned i = 0; i < MAX_DROPINS; i++) {
		snprintf(path, sizeof(path), "%s/%02u.conf", dropins, i);
		unlink(path);
	}
	rmdir(dropins);
	unlink(conf);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzz-config.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(conf, sizeof(conf), "%s/ramwatchd.conf", dir);
	snprintf(dropins, sizeof(dropins), "%s.d", conf);
	if (mkdir(dropins, 0700) < 0)
		abort();
	atexit(remove_all);
	return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

/* The configuration's own text, read back, is the same configuration. */
static void dump_round_trip(const struct daemon_config *c)
{
	struct daemon_config back;
	struct error err = { 0 };
	char changes[1024];
	size_t n = config_format(c, NULL, 0);
	char *text = malloc(n + 1);
	if (!text)
		return;
	config_format(c, text, n + 1);
	if (config_parse_text("dump", text, n, &back, &err) < 0) {
		fprintf(stderr, "--dump-config does not read back: %s\n%s", err.message, text);
		abort();
	}
	if (config_describe_changes(c, &back, changes, sizeof(changes)) != 0) {
		fprintf(stderr, "--dump-config reads back otherwise: %s\n%s", changes, text);
		abort();
	}
	config_done(&back);
	free(text);
}

static void check_selector(const char *s)
{
	struct selector sel, back;
	struct error err = { 0 };
	char text[512];
	if (selector_parse(s, &sel, &err) < 0)
		return;
	size_t n = selector_format(&sel, text, sizeof(text));
	if (n < sizeof(text)) {
		if (selector_parse(text, &back, &err) < 0) {
			fprintf(stderr, "selector '%s' formats as '%s', which does not parse: %s\n", s, text, err.message);
			abort();
		}
		struct selector_list la = { .v = &sel, .n = 1 }, lb = { .v = &back, .n = 1 };
		if (!selector_list_equal(&la, &lb))
			abort();
		selector_done(&back);
	}
	selector_done(&sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct daemon_config c;
	struct error err = { 0 };
	char path[128];
	const uint8_t *p = data, *end = data + size;
	unsigned piece = 0;

	if (config_parse_text("text", (const char *)data, size, &c, &err) == 0)
		config_done(&c);

	for (unsigned i = 0; i < MAX_DROPINS; i++) {
		snprintf(path, sizeof(path), "%s/%02u.conf", dropins, i);
		unlink(path);
	}
	while (piece <= MAX_DROPINS) {
		const uint8_t *cut = memchr(p, '\0', (size_t)(end - p));
		size_t len = cut ? (size_t)(cut - p) : (size_t)(end - p);
		if (piece == 0)
			write_file(conf, p, len);
		else {
			snprintf(path, sizeof(path), "%s/%02u.conf", dropins, piece - 1);
			write_file(path, p, len);
		}
		if (len < 256) {
			char sel[256];
			memcpy(sel, p, len);
			sel[len] = '\0';
			check_selector(sel);
		}
		piece++;
		if (!cut)
			break;
		p = cut + 1;
	}

	if (config_load(conf, &c, &err) == 0) {
		dump_round_trip(&c);
		config_done(&c);
	}
	return 0;
}
