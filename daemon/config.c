/* ramwatchd's configuration as a whole: defaults, loading the file and its
 * drop-ins, the effective configuration as text, and what a reload
 * changed.  Read at start-up and on SIGHUP: a handful of small files. */
#include "config.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config-internal.h"
#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "paths.h"
#include "util.h"

void config_defaults(struct daemon_config *c)
{
	/* the lists start empty, which for Watch= means all processes; every
	 * other default is the table's text, parsed as a file's would be */
	*c = (struct daemon_config){};
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++) {
		if (config_settings[i].type == CONFIG_SELECTORS)
			continue;
		int r = config_setting_apply(&config_settings[i], c, config_settings[i].default_value, NULL);
		assert(r == 0); /* test-config parses every default */
		(void)r;
	}
}

void config_done(struct daemon_config *c)
{
	if (!c)
		return;
	selector_list_clear(&c->watch);
	selector_list_clear(&c->ignore);
	free(c->export_path);
	c->export_path = NULL;
}

int config_parse_text(const char *name, const char *text, size_t len, struct daemon_config *ret, struct error *err)
{
	struct config_parser p;
	int r;

	config_parser_init(&p, err);
	r = config_parser_feed(&p, name, text, len);
	if (r >= 0)
		r = config_parser_finish(&p, ret);
	config_parser_done(&p);
	return r;
}

/* Reads one configuration file whole.  Returns 0, -ENOENT when it does not
 * exist, or another negative errno with the reason in err. */
static int read_config_file(const char *path, char **ret_text, size_t *ret_len, struct error *err)
{
	/* O_NONBLOCK: a FIFO named *.conf must not hang the daemon's reload */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	int r;

	if (fd < 0) {
		r = negative_errno();
		if (r != -ENOENT)
			return error_set(err, r, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = negative_errno();
		return error_set(err, r, "%s: cannot read: %s", path, strerror(-r));
	}
	if (S_ISDIR(st.st_mode))
		return error_set(err, -EISDIR, "%s: is a directory, not a file", path);
	/* /dev/null is the usual way to say "no file, the defaults" */
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3) {
		char *empty = strdup("");
		if (!empty)
			return -ENOMEM;
		*ret_text = empty;
		*ret_len = 0;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return error_set(err, -EINVAL, "%s: not a regular file", path);
	r = read_full_fd(fd, RW_CONFIG_FILE_MAX, ret_text, ret_len);
	if (r == -EFBIG)
		return error_set(err, -E2BIG, "%s: longer than %u bytes", path, RW_CONFIG_FILE_MAX);
	if (r < 0)
		return error_set(err, r, "%s: cannot read: %s", path, strerror(-r));
	return r;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The paths of the *.conf files in dir, in strcmp order of their names (hidden files
 * left out, as a shell glob would).  Returns 0 with *ret (none when dir does
 * not exist), or a negative errno with the reason in err. */
static int list_dropins(const char *dir, char ***ret, size_t *ret_n, struct error *err)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;

	if (!d) {
		int r = negative_errno();
		if (r == -ENOENT) {
			*ret = NULL;
			*ret_n = 0;
			return 0;
		}
		return error_set(err, r, "%s: cannot open: %s", dir, strerror(-r));
	}
	while ((errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
			continue;
		if (n >= RW_CONFIG_DROPINS_MAX) {
			strv_free(v, n);
			return error_set(err, -E2BIG, "%s: more than %u drop-in files", dir, RW_CONFIG_DROPINS_MAX);
		}
		char **nv = reallocarray(v, n + 1, sizeof(*v));
		if (!nv || asprintf(&nv[n], "%s" RW_PATH_SEPARATOR "%s", dir, de->d_name) < 0) {
			strv_free(nv ? nv : v, n);
			return error_set(err, -ENOMEM, "%s: out of memory", dir);
		}
		v = nv;
		n++;
	}
	if (errno != 0) {
		int r = negative_errno();
		strv_free(v, n);
		return error_set(err, r, "%s: cannot read: %s", dir, strerror(-r));
	}
	/* all share the directory prefix, so this is the order of the names */
	qsort_safe(v, n, sizeof(*v), compare_strings);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Reads path (when it exists) and feeds it to p. */
static int feed_file(struct config_parser *p, const char *path, struct error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	int r = read_config_file(path, &text, &len, err);
	if (r == -ENOENT) /* absent, or a drop-in removed while we read the others */
		return 0;
	if (r < 0)
		return r;
	return config_parser_feed(p, path, text, len);
}

int config_load(const char *path, struct daemon_config *ret, struct error *err)
{
	struct config_parser p;
	_cleanup_free_ char *dir = NULL;
	char **dropins = NULL;
	size_t n = 0;
	int r;

	config_parser_init(&p, err);
	r = feed_file(&p, path, err);
	if (r < 0)
		goto out;
	if (asprintf(&dir, "%s.d", path) < 0) {
		dir = NULL;
		r = error_set(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	r = list_dropins(dir, &dropins, &n, err);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		r = feed_file(&p, dropins[i], err);
		if (r < 0)
			goto out;
	}
	/* the drop-in paths stay alive until here: the parser's record of
	 * where each setting came from borrows them */
	r = config_parser_finish(&p, ret);
out:
	strv_free(dropins, n);
	config_parser_done(&p);
	return r;
}

unsigned config_describe_changes(const struct daemon_config *old, const struct daemon_config *new, char *buf,
				 size_t size)
{
	struct config_out o = { .buf = buf, .size = size };
	unsigned changed = 0;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++) {
		const struct config_setting *t = &config_settings[i];
		char a[1024], b[1024];

		if (config_setting_equal(t, old, new))
			continue;
		config_setting_format(t, old, " ", a, sizeof(a));
		config_setting_format(t, new, " ", b, sizeof(b));
		config_out_printf(&o, "%s: %s -> %s\n", t->name, a[0] ? a : "(none)", b[0] ? b : "(none)");
		changed++;
	}
	return changed;
}

size_t config_format(const struct daemon_config *c, char *buf, size_t size)
{
	struct config_out o = { .buf = buf, .size = size };
	const char *section = NULL;

	if (size > 0)
		buf[0] = '\0';
	config_out_printf(&o, "# The effective configuration of ramwatchd; see ramwatchd.conf(5).\n");
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++) {
		const struct config_setting *t = &config_settings[i];

		if (!section || !streq(section, t->section)) {
			section = t->section;
			config_out_printf(&o, "\n[%s]\n", section);
		}
		if (t->type == CONFIG_SELECTORS) {
			/* one selector a line: a long list stays within
			 * RW_CONFIG_LINE_MAX, and each line adds to the list */
			const struct selector_list *l = (const void *)((const char *)c + t->offset);
			if (l->n == 0)
				config_out_printf(&o, "%s=%s\n", t->name, t->default_value);
			for (size_t j = 0; j < l->n; j++) {
				char s[RW_CONFIG_LINE_MAX + 64];
				selector_format(&l->v[j], s, sizeof(s));
				config_out_printf(&o, "%s=%s\n", t->name, s);
			}
			continue;
		}
		/* a line's worth: Export='s path is longer than a number */
		char v[RW_CONFIG_LINE_MAX + 1];
		config_setting_format(t, c, " ", v, sizeof(v));
		config_out_printf(&o, "%s=%s\n", t->name, v);
	}
	return o.len;
}
