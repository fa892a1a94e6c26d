/* ramwatch top: a live view of the watched processes over ramwatchd's
 * socket: the options, the keys, the loop of refreshes.  What it asks is
 * in top-ask.c; the model (top-model.c) and the layout (top-layout.c) are
 * pure; curses is in top-screen.c. */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "limits.h"
#include "macro.h"
#include "render-answer.h"
#include "text.h"
#include "timeparse.h"
#include "top-ask.h"
#include "top-layout.h"
#include "top-model.h"
#include "top-screen.h"
#include "units.h"
#include "util.h"

#define INTERVAL_DEFAULT_MS 2000
#define INTERVAL_MIN_MS 100
#define INTERVAL_MAX_MS (3600 * 1000)
#define WINDOW_DEFAULT_MS (5 * 60 * 1000)
#define WINDOW_MIN_MS (TOP_SPARK_POINTS * 1000)
#define WINDOW_MAX_MS (7 * 24 * 3600 * 1000ll)
/* Columns of --once's screen when standard output is not a terminal. */
#define ONCE_COLS 160u

/* ---------------------------------------------------------------- keys */

static void start_input(struct top *t, enum input kind)
{
	t->input = kind;
	t->typed[0] = '\0';
	if (kind == INPUT_NAME)
		snprintf(t->typed, sizeof(t->typed), "%s", t->name_filter);
	else if (kind == INPUT_USER)
		snprintf(t->typed, sizeof(t->typed), "%s", t->user_filter);
}

/* A key while a line is typed.  Returns true when the data must be read
 * again (a mark was set). */
static bool input_key(struct top *t, int k)
{
	size_t len = strlen(t->typed);

	if (k == TOP_KEY_ESCAPE) {
		t->input = INPUT_NONE;
		return false;
	}
	if (k == TOP_KEY_BACKSPACE) {
		/* a whole UTF-8 character */
		while (len > 0 && ((unsigned char)t->typed[len - 1] & 0xC0) == 0x80)
			len--;
		t->typed[len > 0 ? len - 1 : 0] = '\0';
		return false;
	}
	if (k == TOP_KEY_ENTER) {
		enum input kind = t->input;
		t->input = INPUT_NONE;
		if (kind == INPUT_NAME)
			snprintf(t->name_filter, sizeof(t->name_filter), "%s", t->typed);
		else if (kind == INPUT_USER)
			snprintf(t->user_filter, sizeof(t->user_filter), "%s", t->typed);
		else if (kind == INPUT_MARK) {
			top_set_mark(t, t->typed);
			return true;
		}
		t->v.first = 0;
		top_reorder(t);
		return false;
	}
	size_t max = t->input == INPUT_MARK ? sizeof(t->typed) - 1 : sizeof(t->name_filter) - 1;
	if (k >= 0x20 && k < 256 && k != 0x7f && len < max) {
		t->typed[len] = (char)k;
		t->typed[len + 1] = '\0';
	}
	return false;
}

static void move_to(struct top *t, long to)
{
	if (t->n_order == 0)
		return;
	if (to < 0)
		to = 0;
	if ((size_t)to >= t->n_order)
		to = (long)t->n_order - 1;
	t->v.selected = (size_t)to;
	t->selected_pid = t->rows[t->order[to]].pid;
}

enum action { ACT_NONE, ACT_REFRESH, ACT_CENSUS, ACT_QUIT };

static enum action key(struct top *t, int k, unsigned page)
{
	static const struct {
		int key;
		enum top_sort sort;
	} sorts[] = { { 'P', TOP_SORT_PRIVATE }, { 'R', TOP_SORT_RESIDENT }, { 'E', TOP_SORT_PEAK },
		      { 'G', TOP_SORT_GROWTH }, { 'V', TOP_SORT_VRAM } };

	if (t->input != INPUT_NONE)
		return input_key(t, k) ? ACT_REFRESH : ACT_NONE;
	t->message[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(sorts); i++)
		if (k == sorts[i].key) {
			t->v.sort = sorts[i].sort;
			top_reorder(t);
			return ACT_NONE;
		}
	switch (k) {
	case 'q': return ACT_QUIT;
	case 's': t->v.sort = (t->v.sort + 1) % _TOP_SORT_MAX; top_reorder(t); break;
	case 'g':
		t->v.by = (t->v.by + 1) % _TOP_GROUP_MAX;
		t->v.first = 0;
		top_reorder(t);
		break;
	case TOP_KEY_UP: case 'k': move_to(t, (long)t->v.selected - 1); break;
	case TOP_KEY_DOWN: case 'j': move_to(t, (long)t->v.selected + 1); break;
	case TOP_KEY_PAGE_UP: move_to(t, (long)t->v.selected - (long)page); break;
	case TOP_KEY_PAGE_DOWN: move_to(t, (long)t->v.selected + (long)page); break;
	case TOP_KEY_HOME: move_to(t, 0); break;
	case TOP_KEY_END: move_to(t, (long)t->n_order - 1); break;
	case TOP_KEY_ENTER:
		if (!t->v.detail && top_picked(t)) {
			t->v.detail = true;
			return ACT_REFRESH;
		}
		break;
	case TOP_KEY_ESCAPE: case TOP_KEY_BACKSPACE: t->v.detail = false; break;
	case '/': start_input(t, INPUT_NAME); break;
	case 'u': start_input(t, INPUT_USER); break;
	case 'm': if (top_picked(t)) start_input(t, INPUT_MARK); break;
	case 'c': return top_picked(t) ? ACT_CENSUS : ACT_NONE;
	case TOP_KEY_RESIZE: break;
	default: break;
	}
	return ACT_NONE;
}

/* ---------------------------------------------------------------- the screen */

static void prompt_line(struct top *t)
{
	const struct top_row *r = top_picked(t);
	_cleanup_free_ char *typed = text_visible(t->typed, strlen(t->typed));
	const char *what = t->input == INPUT_NAME   ? "filter by name (a part of the command; empty: all)"
			   : t->input == INPUT_USER ? "filter by user (a name or uid; empty: all)"
						    : "name of the phase to mark";
	if (t->input == INPUT_MARK && r)
		snprintf(t->prompt, sizeof(t->prompt), "mark pid %d, %s: %s_", r->pid, what, typed ? typed : "");
	else
		snprintf(t->prompt, sizeof(t->prompt), "%s: %s_", what, typed ? typed : "");
	t->v.prompt = t->prompt;
}

static int draw(struct top *t, unsigned lines, unsigned cols, FILE *once)
{
	_cleanup_(top_frame_freep) struct top_frame *f = top_frame_new(lines, cols);
	unsigned shown = top_layout_rows(lines);

	if (!f)
		return -ENOMEM;
	/* the picked row stays on the screen, and its group's header above
	 * it where the group begins with it */
	size_t line = top_line_of(t->lines, t->v.n_lines, t->v.selected);
	if (line < t->v.n_lines) {
		size_t top = line > 0 && t->lines[line - 1].header ? line - 1 : line;
		if (top < t->v.first)
			t->v.first = top;
		if (shown && line >= t->v.first + shown)
			t->v.first = line - shown + 1;
	}
	t->v.name_filter = t->name_filter;
	t->v.user_filter = t->user_filter;
	t->v.system_line = t->system_line;
	t->v.message = t->message[0] ? t->message : once ? "" : NULL;
	t->v.prompt = NULL;
	if (t->input != INPUT_NONE)
		prompt_line(t);
	top_layout(f, &t->v, t->rows, t->order, t->n_order, t->detail);
	if (once)
		return top_frame_print(f, once);
	top_screen_paint(f);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_live(struct top *t)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int64_t next = 0;
	int r;

	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	/* Ctrl-C quits too, through curses's cbreak: the terminal is
	 * restored on the way out either way */
	(void)sigaction(SIGINT, &sa, NULL);
	if ((r = top_screen_open(!getenv("NO_COLOR") || !getenv("NO_COLOR")[0])) < 0)
		return fail("cannot use this terminal (TERM=%s)", getenv("TERM") ?: "");
	while (!stop) {
		unsigned lines, cols;
		int64_t now = now_realtime_ms();

		if (now >= next) {
			(void)top_refresh(t);
			next = now_realtime_ms() + t->interval_ms;
		}
		top_screen_size(&lines, &cols);
		if (draw(t, lines, cols, NULL) < 0)
			break;
		int k = top_screen_key((int)(next - now_realtime_ms()));
		if (k == TOP_KEY_NONE)
			continue;
		enum action a = key(t, k, top_layout_rows(lines));
		if (a == ACT_QUIT)
			break;
		if (a == ACT_CENSUS) {
			/* a census may take seconds: say so on the screen first */
			snprintf(t->message, sizeof(t->message), "taking a census of pid %d ...", top_picked(t)->pid);
			draw(t, lines, cols, NULL);
			top_take_census(t);
			a = ACT_REFRESH;
		}
		if (a == ACT_REFRESH) {
			if (t->message[0]) /* say what happened while reading */
				draw(t, lines, cols, NULL);
			next = 0;
		}
	}
	top_screen_close();
	return 0;
}

static int run_once(struct top *t)
{
	struct winsize ws;
	unsigned cols = ONCE_COLS;
	int r;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	if ((r = top_refresh(t)) < 0)
		return fail("%s", t->message[0] ? t->message : strerror(-r));
	/* every row: a screen as tall as the list */
	unsigned lines = (unsigned)(t->v.n_lines + 5 < TOP_LINES_MAX ? t->v.n_lines + 5 : TOP_LINES_MAX);
	if ((r = draw(t, lines, cols, stdout)) < 0 || fflush(stdout) != 0)
		return fail("cannot write the output: %s", strerror(r < 0 ? -r : errno));
	return 0;
}

static int parse_ms(const char *option, const char *arg, int64_t min, int64_t max, int64_t *ret)
{
	char lo[UNITS_FORMAT_MAX], hi[UNITS_FORMAT_MAX];
	uint64_t v;

	if (units_parse_duration(arg, UNITS_USEC_PER_MS, &v) < 0 || v < (uint64_t)min || v > (uint64_t)max)
		return usage_error("top", "%s takes a duration from %s to %s (500ms, 2s, 1min), not '%s'", option,
				   units_format_duration(lo, (uint64_t)min * 1000u),
				   units_format_duration(hi, (uint64_t)max * 1000u), arg);
	*ret = (int64_t)v;
	return 0;
}

int cmd_top(const struct command *self, int argc, char **argv)
{
	struct top t = { .interval_ms = INTERVAL_DEFAULT_MS, .window_ms = WINDOW_DEFAULT_MS, .v.only_uid = -1 };
	bool once = false;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: t.socket = optarg; break;
		case 'd':
			if ((r = parse_ms("--interval", optarg, INTERVAL_MIN_MS, INTERVAL_MAX_MS, &t.interval_ms)) != 0)
				return r;
			break;
		case 'w':
			if ((r = parse_ms("--window", optarg, WINDOW_MIN_MS, WINDOW_MAX_MS, &t.window_ms)) != 0)
				return r;
			break;
		case 's':
			if ((r = top_sort_from_name(optarg)) < 0)
				return usage_error("top", "--sort takes private, resident, peak, growth or vram, not '%s'",
						   optarg);
			t.v.sort = (enum top_sort)r;
			break;
		case 'b':
			if ((r = top_group_from_name(optarg)) < 0)
				return usage_error("top", "--by takes none, cgroup or unit, not '%s'", optarg);
			t.v.by = (enum top_group_by)r;
			break;
		case '1': once = true; break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default: return usage_error("top", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("top", "unexpected argument '%s'", argv[optind]);

	(void)setlocale(LC_ALL, "");
	t.v.ascii = !streq(nl_langinfo(CODESET), "UTF-8");
	t.v.interval_ms = t.interval_ms;
	t.v.window_ms = t.window_ms;

	/* a clear word before the screen is taken: no daemon, no access */
	struct control_error err = { 0 };
	if (control_client_connect(control_client_socket_path(t.socket), &t.c, &err) < 0)
		return fail("%s", err.error.message);
	if (once)
		r = run_once(&t);
	else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		r = fail("top needs a terminal; ramwatch top --once prints one screen as text");
	else
		r = run_live(&t);
	control_client_close(t.c);
	json_decref(t.detail);
	free(t.rows);
	free(t.order);
	free(t.lines);
	free(t.groups);
	return r;
}
