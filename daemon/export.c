/* The metrics on the daemon's side (daemon/export.h): the facts of the
 * watched processes gathered for the pure builder (export-text.c), and the
 * textfile for node_exporter, written every StoreInterval when Export=
 * asks for one.  A few hundred processes: microseconds of work. */
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export-text.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "target.h"
#include "store-read.h"
#include "util.h"
#include "core-interface.h"
#include "watched.h"

void export_state_done(struct export_state *s)
{
	if (!s)
		return;
	free(s->path);
	s->path = NULL;
	s->written = false;
	s->error = 0;
}

int export_write_file(const char *path, const char *text, size_t len, const char **ret_step)
{
	_cleanup_free_ char *tmp = NULL;
	int r;

	*ret_step = "create";
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -ENOMEM;
	/* O_EXCL after the unlink: whatever someone left at PATH.tmp (a link
	 * to another file) is not written through */
	if (unlink(tmp) < 0 && errno != ENOENT)
		return negative_errno();
	_cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return negative_errno();
	/* the unit's UMask=0027 would make it 0640, unreadable to node_exporter */
	if (fchmod(fd, 0644) < 0) {
		r = negative_errno();
		goto fail;
	}
	*ret_step = "write";
	r = write_all(fd, text, len);
	if (r < 0)
		goto fail;
	/* no fsync: the rename is what makes it atomic for readers, and the
	 * file is rewritten within StoreInterval anyway */
	r = close(TAKE_FD(fd)) < 0 ? negative_errno() : 0;
	if (r < 0)
		goto fail;
	*ret_step = "rename";
	if (rename(tmp, path) < 0) {
		r = negative_errno();
		goto fail;
	}
	return 0;
fail:
	(void)unlink(tmp);
	return r;
}

/* ------------------------------------------------------------ gathering */

/* The names of the uids met in one build. */
struct user_names {
	struct {
		int64_t uid;
		char *name; /* NULL: the uid has none */
	} *v;
	size_t n;
};

static const char *user_name(struct user_names *u, int64_t uid)
{
	char buf[4096];
	struct passwd pw, *found = NULL;

	if (uid < 0)
		return NULL;
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].uid == uid)
			return u->v[i].name;
	void *nv = reallocarray(u->v, u->n + 1, sizeof(*u->v));
	if (!nv)
		return NULL; /* the uid stands in */
	u->v = nv;
	/* ERANGE (an entry longer than buf) or no entry: the uid stands in */
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &found) != 0)
		found = NULL;
	u->v[u->n].uid = uid;
	u->v[u->n].name = found && found->pw_name ? strdup(found->pw_name) : NULL;
	return u->v[u->n++].name;
}

static void user_names_done(struct user_names *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].name);
	free(u->v);
}

int export_metrics_text(const struct watched *w, const struct core_status *st, enum export_group_by by,
			const struct gpu_snapshot *gpu, int64_t only_uid, const char *only_owner, char **ret,
			size_t *ret_len)
{
	struct user_names names = { 0 };
	size_t n = 0;
	int r;

	struct export_process *p = calloc(watched_count(w) + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (struct target *t = watched_first(w); t; t = watched_next(t)) {
		const struct store_process *info = &t->ref->info;
		size_t n_gpu = 0;
		const struct gpu_use *uses = gpu ? gpu_snapshot_find(gpu, t->pid, &n_gpu) : NULL;
		if (!store_owner_visible(only_uid, only_owner, info->uid, info->owner))
			continue;
		p[n++] = (struct export_process){
			.comm = info->comm,
			.uid = info->uid,
			.user = by == EXPORT_GROUP_USER ? user_name(&names, info->uid) : NULL,
			.cgroup = t->cgroup,
			.private = t->fast.private,
			.resident = t->fast.resident,
			.swap = t->fast.swap,
			.peak_private = info->peak_private,
			.classes = t->census.classes.ok ? &t->census.classes : NULL,
			.gpu = uses,
			.n_gpu = n_gpu,
		};
	}

	struct export_daemon d = {
		.version = RAMWATCH_VERSION,
		.census_cpu_us = st->census.census_cpu_us,
		.deferred = st->census.deferred,
		.repeated = st->census.censuses_repeated,
		.watched = st->watched,
		.sample_round_us_max = st->sample_round_us_max,
		.store_dropped_rows = st->dropped_rows,
		.store_writing = st->writer.error == 0,
		.database_corruptions = st->corruptions,
		.corruption_moved_to = st->corruption_moved_to,
		.export_errors = st->export_errors,
		.gpu = gpu,
	};
	memcpy(d.censuses, st->census.censuses, sizeof(d.censuses));
	if (st->have_oom) {
		static const enum export_oom_kind kinds[] = {
			[OOM_CONSTRAINT_UNKNOWN] = EXPORT_OOM_UNKNOWN,
			[OOM_CONSTRAINT_NONE] = EXPORT_OOM_GLOBAL,
			[OOM_CONSTRAINT_CPUSET] = EXPORT_OOM_CPUSET,
			[OOM_CONSTRAINT_MEMORY_POLICY] = EXPORT_OOM_MEMORY_POLICY,
			[OOM_CONSTRAINT_MEMCG] = EXPORT_OOM_MEMCG,
		};
		d.oom_sources = st->oom.watch || st->oom.kmsg || st->oom.counter;
		for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
			d.oom_kills[kinds[i]] += st->oom.kills[i];
		d.oom_kills[EXPORT_OOM_COUNTED] = st->oom.counted;
	}
	d.cgroups = st->cgroups;
	d.n_cgroups = st->n_cgroups;

	r = export_text_build(&d, p, n, by, ret, ret_len);
	user_names_done(&names);
	free(p);
	return r;
}

/* ------------------------------------------------------------ the textfile */

/* Forgets the file of a path Export= no longer names, and removes it: left
 * there, node_exporter would go on serving its numbers as current. */
static void forget_path(struct export_state *s)
{
	if (s->written) {
		if (unlink(s->path) < 0 && errno != ENOENT)
			log_warning_errno(errno, "cannot remove the metrics textfile %s, which Export= no longer names: %m",
					  s->path);
		else
			log_info("metrics textfile %s removed: Export= no longer names it", s->path);
	}
	export_state_done(s);
}

void export_textfile(struct export_state *s, const char *path, export_build_t build, void *userdata)
{
	_cleanup_free_ char *text = NULL;
	const char *step = "gather";
	size_t len = 0;
	int r;

	if (s->path && !streq_ptr(s->path, path))
		forget_path(s);
	if (!path)
		return;
	if (!s->path && !(s->path = strdup(path)))
		return;

	r = build(userdata, &text, &len);
	if (r >= 0)
		r = export_write_file(path, text, len, &step);
	if (r < 0) {
		s->errors++;
		/* once per change: a directory that is missing stays missing for
		 * a while, and a line every StoreInterval would bury the rest */
		if (r != s->error) {
			bool denied = r == -EROFS || r == -EACCES || r == -EPERM;
			log_warning_errno(r, "cannot write the metrics textfile %s (%s): %m%s; trying again every StoreInterval",
					  path, step,
					  denied ? " (under systemd the unit must be allowed to write there: ReadWritePaths=, "
						   "see ramwatchd.conf(5))"
						 : "");
		}
		s->error = r;
		return;
	}
	if (s->error != 0)
		log_info("metrics textfile %s written again", path);
	else if (!s->written)
		log_info("writing the metrics to %s every StoreInterval", path);
	s->error = 0;
	s->written = true;
}
