/* The table of the control socket's requests (request-table.h): the
 * entries of request-table.def as data, and the vocabulary of their
 * arguments. */
#include "request-table.h"

#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "util.h"

static const struct request_arg request_args[_REQUEST_ARG_MAX] = {
	[REQUEST_ARG_PID] = {
		.name = "pid", .type = REQUEST_INT, .min = 1, .max = INT32_MAX,
		.help = "the process with that pid: its most recent instance (all of them with instance)",
	},
	[REQUEST_ARG_NAME] = {
		.name = "name", .type = REQUEST_STRING,
		.what = "a pattern is needed (a glob on the command name or line)",
		.help = "every process whose comm or command line matches the glob",
	},
	[REQUEST_ARG_PROCESS_ID] = {
		.name = "process_id", .type = REQUEST_INT, .min = 1, .max = INT64_MAX,
		.help = "one instance by its row id in the store",
	},
	[REQUEST_ARG_INSTANCE] = {
		.name = "instance", .type = REQUEST_WORD, .words = { "all", "latest" },
		.help = "with pid: every instance with that pid, or the latest (the default)",
	},
	[REQUEST_ARG_SINCE] = {
		.name = "since", .type = REQUEST_INT, .min = 0, .max = INT64_MAX,
		.help = "from this time, included (unix ms)",
	},
	[REQUEST_ARG_UNTIL] = {
		.name = "until", .type = REQUEST_INT, .min = 0, .max = INT64_MAX,
		.help = "to this time, included (unix ms; default now)",
	},
	[REQUEST_ARG_CLASSES] = {
		.name = "classes", .type = REQUEST_CLASSES,
		.help = "the class series to give (class keys; default all)",
	},
	[REQUEST_ARG_STEP_MS] = {
		.name = "step_ms", .type = REQUEST_INT, .min = 0, .max = INT64_MAX / 2,
		.help = "resample the rows into buckets this long (0: as stored)",
	},
	[REQUEST_ARG_LIMIT] = {
		.name = "limit", .type = REQUEST_INT, .min = 1, .max = RW_ANSWER_ROWS_MAX,
		.help = "rows (or processes) in one answer",
	},
	[REQUEST_ARG_CURSOR] = {
		.name = "cursor", .type = REQUEST_STRING,
		.what = "give the \"next\" of the previous answer, or null",
		.help = "the \"next\" of the previous page",
	},
	[REQUEST_ARG_ALL] = {
		.name = "all", .type = REQUEST_BOOL,
		.help = "also the processes no longer watched",
	},
	[REQUEST_ARG_SORT] = {
		.name = "sort", .type = REQUEST_WORD, .words = { "private", "resident", "peak", "vram" },
		.help = "the order, largest first",
	},
	[REQUEST_ARG_AT] = {
		.name = "at", .type = REQUEST_INT_OR_WORD, .min = 0, .max = INT64_MAX, .words = { "first", "last" },
		.what = "unix milliseconds",
		.help = "the census taken at or before this time",
	},
	[REQUEST_ARG_FULL] = {
		.name = "full", .type = REQUEST_BOOL,
		.help = "a full census even above HugeProcess",
	},
	[REQUEST_ARG_LIGHT] = {
		.name = "light", .type = REQUEST_BOOL,
		.help = "a light census: sizes without a page-table walk",
	},
	[REQUEST_ARG_MARK_NAME] = {
		.name = "name", .type = REQUEST_TEXT,
		.needed_why = "the phase that starts now",
		.help = "the phase's name: 1 to 200 bytes of UTF-8, no control characters",
	},
	[REQUEST_ARG_CGROUP] = {
		.name = "cgroup", .type = REQUEST_STRING,
		.what = "a memory cgroup's path is needed (/system.slice/foo.service)",
		.help = "a memory cgroup, by its path below the controller's mount",
	},
	[REQUEST_ARG_UNIT] = {
		.name = "unit", .type = REQUEST_STRING,
		.what = "a systemd unit is needed (foo.service)",
		.help = "the memory cgroups of a systemd unit",
	},
};

/* How a request takes an argument (request-table.def). */
#define USE(ID, ...) { .arg = REQUEST_ARG_##ID, __VA_ARGS__ }
#define REQUEST_ARGS(...)                                        \
	.args = (const struct request_use[]){ __VA_ARGS__ },       \
	.n_args = sizeof((const struct request_use[]){ __VA_ARGS__ }) / sizeof(struct request_use)
/* One process or several: by pid (with which instances), name or row id. */
#define REQUEST_SELECT_PROCESS                                                                \
	USE(PID, .one_of = true), USE(NAME, .one_of = true), USE(PROCESS_ID, .one_of = true), \
		USE(INSTANCE, .only_with = REQUEST_ARG_PID, .dflt_word = "latest")

static const struct request_decl table[_CONTROL_OP_MAX] = {
#define REQUEST(ID, NAME, handlers, ...) [CONTROL_OP_##ID] = { .name = #NAME, __VA_ARGS__ },
#include "request-table.def"
#undef REQUEST
};

const struct request_decl *request_table_get(enum control_op op)
{
	return op >= 0 && op < _CONTROL_OP_MAX ? &table[op] : NULL;
}

int request_table_find(const char *name)
{
	for (int op = 0; op < _CONTROL_OP_MAX; op++)
		if (streq(table[op].name, name))
			return op;
	return -1;
}

const char *request_table_name(enum control_op op)
{
	const struct request_decl *d = request_table_get(op);
	return d ? d->name : NULL;
}

const struct request_arg *request_table_arg(enum request_arg_id id)
{
	return id > REQUEST_ARG_NONE && id < _REQUEST_ARG_MAX ? &request_args[id] : NULL;
}

const struct request_use *request_table_use(enum control_op op, const char *key)
{
	const struct request_decl *d = request_table_get(op);

	for (size_t i = 0; d && i < d->n_args; i++)
		if (streq(request_args[d->args[i].arg].name, key))
			return &d->args[i];
	return NULL;
}

const char *request_table_join(char *buf, size_t size, const char *const *words, size_t n, bool quoted,
			       const char *conj)
{
	const char *q = quoted ? "\"" : "";
	char *p = buf;
	size_t left = size;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n && left > 0; i++) {
		const char *before = i == 0 ? "" : i + 1 < n ? ", " : NULL;
		int r = before ? snprintf(p, left, "%s%s%s%s", before, q, words[i], q)
			       : snprintf(p, left, " %s %s%s%s", conj, q, words[i], q);
		if (r < 0 || (size_t)r >= left)
			break; /* cut: what fit is there */
		p += r;
		left -= (size_t)r;
	}
	return buf;
}

const char *request_table_list(char *buf, size_t size)
{
	const char *names[_CONTROL_OP_MAX];

	for (int op = 0; op < _CONTROL_OP_MAX; op++)
		names[op] = table[op].name;
	return request_table_join(buf, size, names, _CONTROL_OP_MAX, false, "or");
}

bool request_table_served_here(enum control_op op)
{
	const struct request_decl *d = request_table_get(op);
#ifdef _WIN32
	unsigned here = REQUEST_WINDOWS;
#else
	unsigned here = REQUEST_LINUX;
#endif
	return d && (d->platforms & here);
}

const char *request_table_platform_here(void)
{
#ifdef _WIN32
	return "Windows";
#else
	return "Linux";
#endif
}
