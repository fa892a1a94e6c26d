/* The control socket's requests (doc/protocol.md), declared once, in
 * request-table.def: each request's name, where the daemon runs it, who
 * may ask it, its time limit, its arguments, what it changes in the
 * daemon, the platforms that serve it, and its help.
 *
 * Everything else follows from that file: the enum below; the daemon's
 * dispatch (control-ops.c reads the handlers each entry names), its
 * refusal of unknown and mistyped arguments and the words of those
 * refusals (control-request.c walks the arguments), each request's time
 * limit; the client's answer where no daemon serves a request (the
 * Windows build); and the lists of requests in doc/protocol.md and
 * ramwatchd(8), which test-request-table checks against it.
 *
 * The arguments are a vocabulary of their own (request_args[]): "pid"
 * means one thing in every request that takes it.  A request lists the
 * ones it takes, with what is particular to it (needed, a default, one of
 * a group). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limits.h"

enum control_op {
#define REQUEST(ID, name, handlers, ...) CONTROL_OP_##ID,
#include "request-table.def"
#undef REQUEST
	_CONTROL_OP_MAX
};

/* What a value of an argument must be; the refusal of a value that is
 * not says so in these words ("pid: an integer is needed"). */
enum request_type {
	REQUEST_INT,         /* an integer within [min, max] */
	REQUEST_BOOL,        /* true or false */
	REQUEST_STRING,      /* a string, not empty, without NUL (else: "KEY: what") */
	REQUEST_TEXT,        /* a string its request checks itself (a mark's name) */
	REQUEST_WORD,        /* one of words */
	REQUEST_INT_OR_WORD, /* an integer within [min, max] ("what"), or one of words */
	REQUEST_CLASSES,     /* an array of class keys, each at most once */
};

/* Every argument of the protocol (0 is none).  "name" is two: the glob
 * that selects processes, and a mark's name. */
enum request_arg_id {
	REQUEST_ARG_NONE,
	REQUEST_ARG_PID,
	REQUEST_ARG_NAME,
	REQUEST_ARG_PROCESS_ID,
	REQUEST_ARG_INSTANCE,
	REQUEST_ARG_SINCE,
	REQUEST_ARG_UNTIL,
	REQUEST_ARG_CLASSES,
	REQUEST_ARG_STEP_MS,
	REQUEST_ARG_LIMIT,
	REQUEST_ARG_CURSOR,
	REQUEST_ARG_ALL,
	REQUEST_ARG_SORT,
	REQUEST_ARG_AT,
	REQUEST_ARG_FULL,
	REQUEST_ARG_LIGHT,
	REQUEST_ARG_MARK_NAME,
	REQUEST_ARG_CGROUP,
	REQUEST_ARG_UNIT,
	_REQUEST_ARG_MAX
};

#define REQUEST_WORDS_MAX 8

struct request_arg {
	const char *name;   /* its key in a request */
	enum request_type type;
	int64_t min, max;   /* REQUEST_INT, REQUEST_INT_OR_WORD */
	const char *words[REQUEST_WORDS_MAX]; /* REQUEST_WORD, REQUEST_INT_OR_WORD; NULL after the last */
	const char *what;   /* REQUEST_STRING: what is needed, when empty; REQUEST_INT_OR_WORD: what the integer is */
	const char *needed_why; /* said when a request needs it and it is missing ("name is needed: ...") */
	const char *help;
};

/* An argument as one request takes it. */
struct request_use {
	enum request_arg_id arg;
	bool required;                /* "pid is needed" */
	bool one_of;                  /* exactly one of the request's one_of arguments is needed */
	bool exclusive;               /* at most one of the request's exclusive arguments */
	enum request_arg_id only_with; /* given only with that argument */
	/* The value when absent: REQUEST_INT's dflt (for "since": how long
	 * before "until", 0 from the beginning; "until" is now); a word's
	 * dflt_word.  Without them the request has no value (0, NULL, false). */
	int64_t dflt;
	const char *dflt_word;
};

/* Where the daemon runs a request: on the event loop, which samples, and
 * answers there only from its memory; or on the read worker, a thread
 * with its own read-only connection to the database. */
enum request_runs {
	REQUEST_ON_LOOP,
	REQUEST_ON_WORKER,
	REQUEST_ON_LOOP_THEN_WORKER, /* the loop copies what the worker needs; the worker answers */
	REQUEST_ON_LOOP_OR_WORKER,   /* the loop for a watched process, the worker for another */
};

/* Who may ask (doc/protocol.md, "Who may see what"). */
enum request_access {
	/* any user; what names others' processes in the answer is for root
	 * and group ramwatch alone (or left out for others) */
	REQUEST_ANYONE,
	/* any user for their own processes (lists hold only those); root and
	 * group ramwatch for every process */
	REQUEST_OWN_PROCESSES,
};

/* The platforms whose daemon serves a request (a bit each). */
enum request_platform {
	REQUEST_LINUX = 1u << 0,
	REQUEST_WINDOWS = 1u << 1,
};

#define REQUEST_ARGS_MAX 12

struct request_decl {
	const char *name;            /* its "op" */
	enum request_runs runs;
	enum request_access access;
	uint64_t timeout_us;         /* past it the answer is "timeout" */
	unsigned platforms;          /* enum request_platform's bits */
	const struct request_use *args;
	size_t n_args;
	/* What it changes in the daemon beyond its answer, and so which
	 * modules must take it into account ("nothing" for a reading). */
	const char *effects;
	const char *help;
};

/* The entry of op; NULL out of range. */
const struct request_decl *request_table_get(enum control_op op);
/* The request named name; -1 when there is none. */
int request_table_find(const char *name);
/* op's name; NULL out of range. */
const char *request_table_name(enum control_op op);

/* The argument id's declaration; NULL out of range or for none. */
const struct request_arg *request_table_arg(enum request_arg_id id);
/* How op takes the argument named key; NULL when it does not. */
const struct request_use *request_table_use(enum control_op op, const char *key);

/* "status, processes, ... or metrics": every request's name, into buf.
 * Returns buf. */
const char *request_table_list(char *buf, size_t size);

/* Words joined as a person reads them: "a", "b" or "c" (quoted), or
 * a, b or c (not), with conj "or" or "and".  Returns buf. */
const char *request_table_join(char *buf, size_t size, const char *const *words, size_t n, bool quoted,
			       const char *conj);

/* Whether the daemon of the platform this program is built for serves
 * op. */
bool request_table_served_here(enum control_op op);
/* The platform this program is built for, as people name it: "Linux" or
 * "Windows". */
const char *request_table_platform_here(void);
