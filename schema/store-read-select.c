/* Which process instances a request is about, and whether the asker may
 * see them: by row id, by pid (the newest instance, or all of them), or by
 * a glob on the comm or command line.  Also the two JSON forms of an
 * instance: history's "instances" entry and the "processes" entry.
 *
 * The processes table has no index on pid; its unique index leads with
 * boot_id, of which there are only as many values as boots the store
 * remembers.  So a pid is found by skipping through the boot ids in that
 * index (a loose index scan), a lookup of (boot_id, pid) at each: a few
 * lookups, never a scan of the table.
 * A glob cannot use an index: it reads the table, one row per instance. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "store-read-internal.h"

DEFINE_CLEANUP(sqlite3_stmt *, read_done)

static char *column_dup(sqlite3_stmt *st, int i, bool *oom)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	char *copy;

	if (!s)
		return NULL;
	copy = strdup((const char *)s);
	if (!copy)
		*oom = true;
	return copy;
}

static int64_t column_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* The columns of READ_PROCESS_COLUMNS, by place. */
enum process_column {
	PC_ID,
	PC_PID,
	PC_START_TIME,
	PC_STARTED_AT,
	PC_UID,
	PC_FIRST_SEEN,
	PC_LAST_SEEN,
	PC_EXITED_AT,
	PC_PEAK_PRIVATE,
	PC_PEAK_RESIDENT,
	PC_BOOT_ID,
	PC_COMM,
	PC_EXE,
	PC_CMDLINE,
	PC_PEAK_VRAM,
	PC_PLATFORM,
	PC_OWNER,
	_PC_MAX
};
static const struct read_column process_columns[] = {
	[PC_ID] = { "id", READ_KEY },
	[PC_PID] = { "pid", READ_KEY },
	[PC_START_TIME] = { "start_time", READ_KEY },
	[PC_STARTED_AT] = { "started_at", READ_KEY },
	[PC_UID] = { "uid", READ_KEY },
	[PC_FIRST_SEEN] = { "first_seen", READ_KEY },
	[PC_LAST_SEEN] = { "last_seen", READ_KEY },
	[PC_EXITED_AT] = { "exited_at", READ_KEY },
	[PC_PEAK_PRIVATE] = { "peak_private", READ_KEY },
	[PC_PEAK_RESIDENT] = { "peak_resident", READ_KEY },
	[PC_BOOT_ID] = { "boot_id", READ_KEY },
	[PC_COMM] = { "comm", READ_KEY },
	[PC_EXE] = { "exe", READ_KEY },
	[PC_CMDLINE] = { "cmdline", READ_KEY },
	[PC_PEAK_VRAM] = { "peak_vram", READ_KEY },
	[PC_PLATFORM] = { "platform", READ_KEY },
	[PC_OWNER] = { "owner", READ_KEY },
};
_Static_assert(ELEMENTSOF(process_columns) == _PC_MAX, "a column for every field");

int read_process_prepare(struct store_reader *r, enum read_stmt id, const char *sql, sqlite3_stmt **ret)
{
	const struct read_query q = { .id = id, .sql = sql, .columns = process_columns, .n_columns = _PC_MAX };

	return read_query_prepare(r, &q, ret);
}

int read_process_load(sqlite3_stmt *st, struct read_process *ret)
{
	struct read_process p = {
		.id = sqlite3_column_int64(st, PC_ID),
		.pid = sqlite3_column_int(st, PC_PID),
		.start_time = sqlite3_column_int64(st, PC_START_TIME),
		.started_at = column_opt(st, PC_STARTED_AT),
		.uid = column_opt(st, PC_UID),
		.first_seen = sqlite3_column_int64(st, PC_FIRST_SEEN),
		.last_seen = sqlite3_column_int64(st, PC_LAST_SEEN),
		.exited_at = column_opt(st, PC_EXITED_AT),
		.peak_private = sqlite3_column_int64(st, PC_PEAK_PRIVATE),
		.peak_resident = sqlite3_column_int64(st, PC_PEAK_RESIDENT),
		.peak_vram = sqlite3_column_int64(st, PC_PEAK_VRAM),
	};
	const unsigned char *platform = sqlite3_column_text(st, PC_PLATFORM);
	bool oom = false;
	int k;

	/* the schema's CHECK allows no other name */
	k = platform ? census_platform_from_name((const char *)platform) : -1;
	p.platform = k >= 0 ? (enum census_platform)k : PLATFORM_LINUX;
	p.boot_id = column_dup(st, PC_BOOT_ID, &oom);
	p.owner = column_dup(st, PC_OWNER, &oom);
	p.comm = column_dup(st, PC_COMM, &oom);
	p.exe = column_dup(st, PC_EXE, &oom);
	p.cmdline = column_dup(st, PC_CMDLINE, &oom);
	if (oom) {
		read_process_clear(&p);
		return -ENOMEM;
	}
	*ret = p;
	return 0;
}

void read_process_clear(struct read_process *p)
{
	free(p->boot_id);
	free(p->comm);
	free(p->exe);
	free(p->cmdline);
	free(p->owner);
	memset(p, 0, sizeof(*p));
}

void read_processes_free(struct read_process *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		read_process_clear(&p[i]);
	free(p);
}

bool store_owner_visible(int64_t only_uid, const char *only_owner, int64_t uid, const char *owner)
{
	return only_uid < 0 || uid == only_uid || (only_owner && owner && strcasecmp(owner, only_owner) == 0);
}

static bool visible(const struct read_process *p, const struct store_select *sel)
{
	return store_owner_visible(sel->only_uid, sel->only_owner, p->uid, p->owner);
}

/* -EACCES, naming the process and its owner for a person. */
static int deny(struct store_reader *r, const struct read_process *p)
{
	const char *comm = p->comm ? p->comm : "?";
	char user[256];

	if (p->uid < 0 && p->owner)
		return read_failf(r, -EACCES, "process %d (%s) belongs to %s", p->pid, comm, p->owner);
	if (p->uid < 0)
		return read_failf(r, -EACCES, "process %d (%s): its owner is not known", p->pid, comm);
	if (read_user_name(p->uid, user, sizeof(user)))
		return read_failf(r, -EACCES, "process %d (%s) belongs to uid %lld (%s)", p->pid, comm,
				  (long long)p->uid, user);
	return read_failf(r, -EACCES, "process %d (%s) belongs to uid %lld", p->pid, comm, (long long)p->uid);
}

/* Reads the rows of st (READ_PROCESS_COLUMNS), at most max, into *ret and
 * *ret_n (*ret NULL when there are none).  Returns 1 when there were more
 * than max, 0 when not, or a negative errno; st is reset either way. */
static int collect(struct store_reader *r, sqlite3_stmt *st, size_t max, struct read_process **ret, size_t *ret_n)
{
	struct read_process *all = NULL;
	size_t n = 0, size = 0;
	int e;

	while ((e = read_step(r, st, "reading processes")) > 0) {
		if (n == max) {
			n++;
			break;
		}
		if (n == size) {
			size_t more = size ? 2 * size : 4;
			struct read_process *grown = realloc(all, more * sizeof(*all));
			if (!grown) {
				e = -ENOMEM;
				break;
			}
			all = grown;
			size = more;
		}
		e = read_process_load(st, &all[n]);
		if (e < 0)
			break;
		n++;
	}
	read_done(st);
	if (e < 0) {
		read_processes_free(all, n > max ? max : n);
		return e;
	}
	*ret = all;
	*ret_n = n > max ? max : n;
	return n > max ? 1 : 0;
}

static int by_id(struct store_reader *r, int64_t id, struct read_process **ret, size_t *ret_n)
{
	sqlite3_stmt *st = NULL;
	int e;

	e = read_process_prepare(r, RS_PROCESS_BY_ID, "SELECT " READ_PROCESS_COLUMNS " FROM processes p WHERE p.id = ?1",
				 &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, id), "reading a process");
	if (e < 0)
		return e;
	return collect(r, st, 1, ret, ret_n);
}

/* The next boot id after boot (NULL: the first) in the unique index.
 * Returns 1 with *ret (free()), 0 after the last, or a negative errno. */
static int next_boot(struct store_reader *r, const char *boot, char **ret)
{
	static const struct read_column columns[] = { { "boot_id", READ_KEY } };
	static const struct read_query q =
		READ_QUERY(RS_PROCESS_BOOTS, "SELECT min(boot_id) AS boot_id FROM processes WHERE boot_id > ?1", columns);
	sqlite3_stmt *st = NULL;
	int e;

	e = read_query_prepare(r, &q, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_text(st, 1, boot ? boot : "", -1, SQLITE_STATIC), "reading processes");
	if (e >= 0)
		e = read_step(r, st, "reading processes");
	if (e > 0) {
		const char *next = (const char *)sqlite3_column_text(st, 0);
		if (!next)
			e = 0;
		else if (!(*ret = strdup(next)))
			e = -ENOMEM;
	}
	read_done(st);
	return e;
}

static int compare_newest(const void *a, const void *b)
{
	const struct read_process *x = a, *y = b;

	if (x->last_seen != y->last_seen)
		return x->last_seen > y->last_seen ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}

/* Every instance of pid, newest first: the instances of each boot in turn
 * (simple statements, nothing for SQLite to sort or hold), sorted here. */
static int by_pid(struct store_reader *r, int pid, struct read_process **ret, size_t *ret_n)
{
	struct read_process *all = NULL, *some;
	_cleanup_free_ char *boot = NULL;
	size_t n = 0, k;
	char *next = NULL;
	sqlite3_stmt *st = NULL;
	int e, rc;

	while ((e = next_boot(r, boot, &next)) > 0) {
		free(boot);
		boot = next;
		e = read_process_prepare(r, RS_PROCESS_BY_PID,
					 "SELECT " READ_PROCESS_COLUMNS " FROM processes p WHERE p.boot_id = ?1 AND p.pid = ?2",
					 &st);
		if (e < 0)
			break;
		rc = sqlite3_bind_text(st, 1, boot, -1, SQLITE_STATIC);
		rc |= sqlite3_bind_int(st, 2, pid);
		e = read_bound(r, st, rc, "reading processes");
		if (e < 0)
			break;
		e = collect(r, st, RW_ANSWER_ROWS_MAX, &some, &k);
		if (e < 0)
			break;
		if (k > 0) {
			struct read_process *grown = realloc(all, (n + k) * sizeof(*all));
			if (!grown) {
				read_processes_free(some, k);
				e = -ENOMEM;
				break;
			}
			all = grown;
			memcpy(all + n, some, k * sizeof(*some));
			n += k;
		}
		free(some);
	}
	if (e < 0) {
		read_processes_free(all, n);
		return e;
	}
	qsort_safe(all, n, sizeof(*all), compare_newest);
	*ret = all;
	*ret_n = n;
	return 0;
}

static int by_name(struct store_reader *r, const struct store_select *sel, size_t max, struct read_process **ret,
		   size_t *ret_n)
{
	static const char sql[] = "SELECT " READ_PROCESS_COLUMNS " FROM processes p"
				  " WHERE (rw_glob(?1, p.comm) OR rw_glob(?1, p.cmdline))"
				  " AND (?2 < 0 OR p.uid = ?2 OR p.owner = ?4 COLLATE NOCASE)"
				  " ORDER BY p.last_seen DESC, p.id DESC LIMIT ?3";
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_process_prepare(r, RS_PROCESS_BY_NAME, sql, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_text(st, 1, sel->name, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, 2, sel->only_uid);
	rc |= sqlite3_bind_int64(st, 3, (int64_t)max + 1);
	rc |= sel->only_owner ? sqlite3_bind_text(st, 4, sel->only_owner, -1, SQLITE_STATIC) : sqlite3_bind_null(st, 4);
	e = read_bound(r, st, rc, "reading processes");
	if (e < 0)
		return e;
	return collect(r, st, max, ret, ret_n);
}

int read_select(struct store_reader *r, const struct store_select *sel, bool latest, struct read_process **ret,
		size_t *ret_n)
{
	struct read_process *p = NULL;
	size_t n = 0, kept = 0;
	int e;

	if ((sel->pid != 0) + (sel->name != NULL) + (sel->process_id != 0) != 1)
		return read_failf(r, -EINVAL, "one of pid, name and process_id says which process");
	if (sel->pid < 0)
		return read_failf(r, -EINVAL, "pid: %d is not a process id", sel->pid);
	if (sel->process_id < 0)
		return read_failf(r, -EINVAL, "process_id: %lld is not a row id", (long long)sel->process_id);
	if (sel->name && !sel->name[0])
		return read_failf(r, -EINVAL, "name: an empty pattern matches no process");

	if (sel->process_id)
		e = by_id(r, sel->process_id, &p, &n);
	else if (sel->pid)
		e = by_pid(r, sel->pid, &p, &n);
	else
		e = by_name(r, sel, latest ? 1 : RW_ANSWER_ROWS_MAX, &p, &n);
	if (e < 0)
		return e;
	if (e > 0 && !latest) {
		read_processes_free(p, n);
		return read_failf(r, -EINVAL, "more than %u process instances match; narrow the selection",
				  RW_ANSWER_ROWS_MAX);
	}

	if (n == 0) {
		free(p);
		if (sel->process_id)
			return read_failf(r, -ENOENT, "no process instance %lld in the store", (long long)sel->process_id);
		if (sel->pid)
			return read_failf(r, -ENOENT, "no process with pid %d in the store", sel->pid);
		if (sel->only_owner)
			return read_failf(r, -ENOENT, "no process of %s matches \"%s\"", sel->only_owner, sel->name);
		if (sel->only_uid >= 0)
			return read_failf(r, -ENOENT, "no process of uid %lld matches \"%s\"", (long long)sel->only_uid,
					  sel->name);
		return read_failf(r, -ENOENT, "no process matches \"%s\"", sel->name);
	}

	/* By pid or row id the asker named one process: another's is an
	 * answer of its own (denied), not an empty list.  Of every instance
	 * of a pid, those of others are left out unless that is all. */
	if (latest || sel->process_id || (sel->pid && !sel->all_instances)) {
		for (size_t i = 1; i < n; i++)
			read_process_clear(&p[i]);
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (visible(&p[i], sel)) {
			if (kept != i) {
				read_process_clear(&p[kept]); /* one left out */
				p[kept] = p[i];
				memset(&p[i], 0, sizeof(p[i]));
			}
			kept++;
		}
	}
	if (kept == 0) {
		e = deny(r, &p[0]);
		read_processes_free(p, n);
		return e;
	}
	for (size_t i = kept; i < n; i++)
		read_process_clear(&p[i]);
	*ret = p;
	*ret_n = kept;
	return 0;
}

int read_process_ids(const struct read_process *p, size_t n, char **ret)
{
	/* "[", up to 20 digits and a comma each, "]" */
	size_t size = 2 + 21 * n + 1, len = 0;
	char *s = malloc(size);

	if (!s)
		return -ENOMEM;
	s[len++] = '[';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, size - len, "%s%lld", i ? "," : "", (long long)p[i].id);
	s[len++] = ']';
	s[len] = '\0';
	*ret = s;
	return 0;
}

json_t *read_instance_json(const struct read_process *p)
{
	json_t *o = json_object();
	char label[128];
	int e;

	if (!o)
		return NULL;
	/* as the process_labels view writes it */
	snprintf(label, sizeof(label), "%s [%d]", p->comm ? p->comm : "?", p->pid);
	e = read_set(o, "process_id", json_integer(p->id));
	e |= read_set(o, "pid", json_integer(p->pid));
	e |= read_set(o, "label", text_json_string(label));
	e |= read_set(o, "comm", text_json_string(p->comm));
	e |= read_set(o, "cmdline", text_json_string(p->cmdline));
	e |= read_set(o, "uid", json_field_int_or_null(p->uid));
	e |= read_set(o, "start_time", json_integer(p->start_time));
	e |= read_set(o, "first_seen", json_integer(p->first_seen));
	e |= read_set(o, "exited_at", json_field_int_or_null(p->exited_at));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int store_read_instances(struct store_reader *r, const struct store_select *sel, json_t **ret, struct error *err)
{
	struct read_process *p = NULL;
	json_t *a = NULL;
	size_t n = 0;
	int e;

	e = read_begin(r);
	if (e >= 0)
		e = read_select(r, sel, false, &p, &n);
	if (e >= 0) {
		a = json_array();
		for (size_t i = 0; a && e >= 0 && i < n; i++)
			if (json_array_append_new(a, read_instance_json(&p[i])) < 0)
				e = -ENOMEM;
		if (!a)
			e = -ENOMEM;
	}
	read_processes_free(p, n);
	if (e < 0) {
		json_decref(a);
		return read_end(r, e, err);
	}
	*ret = a;
	return read_end(r, 0, err);
}
