/* See census-print.h.  Moved out of cmd-scan.c so that the Windows
 * scan (client/windows/) prints and saves a census the same way. */
#include "census-print.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census-json.h"
#include "census.h"
#include "commands.h"
#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "render-census.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

int parse_top(const char *command, const char *arg, size_t *ret)
{
	uint64_t v;
	if (parse_u64(arg, 10, &v) < 0 || v == 0 || v > RW_TOP_MAX)
		return usage_error(command, "--top takes a number from 1 to %u, not '%s'", RW_TOP_MAX, arg);
	*ret = (size_t)v;
	return 0;
}

int print_census(const struct census *c, enum output out, size_t top, bool regions, bool gpu_asked)
{
	if (out == OUT_JSON) {
		_cleanup_(json_decrefp) json_t *j = census_to_json(c, regions);
		if (!j || json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0)
			return fail("cannot write JSON: %s", strerror(ENOMEM));
		fputc('\n', stdout);
	} else {
		struct render_options o = {
			.format = out == OUT_MARKDOWN ? RENDER_MARKDOWN : RENDER_TEXT,
			.top = top,
			.regions = regions,
			.gpu_asked = gpu_asked,
		};
		render_census(c, &o, stdout);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail("cannot write the output: %s", strerror(errno));
	return 0;
}

int save_census(const struct census *c, const char *path)
{
	_cleanup_(json_decrefp) json_t *j = census_to_json(c, true);
	_cleanup_free_ char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	if (!text)
		return fail("out of memory");
	size_t len = strlen(text);
	text[len] = '\n';
	int r = write_file_atomic(path, text, len + 1);
	text[len] = '\0';
	if (r < 0)
		return fail("cannot save the census to %s: %s", path, strerror(-r));
	return 0;
}

int cmd_summary(const struct command *self, int argc, char **argv)
{
	_cleanup_(census_freep) struct census *c = NULL;
	enum output out = OUT_TABLE;
	size_t top = RW_TOP_DEFAULT;
	bool regions = false;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'j': out = OUT_JSON; break;
		case 'm': out = OUT_MARKDOWN; break;
		case 'r': regions = true; break;
		case 't':
			if ((r = parse_top("summary", optarg, &top)) != 0)
				return r;
			break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default: return usage_error("summary", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("summary", "give one census file");
	if ((r = load_census_file(argv[optind], &c)) != 0)
		return r;
	if (regions && !c->regions)
		return fail("%s holds no region list: save it with 'ramwatch scan --out' or '--json --regions'",
			    argv[optind]);
	return print_census(c, out, top, regions, false);
}
