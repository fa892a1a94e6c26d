/* The classes of memory: the vocabulary every census, table, database row
 * and metric uses (doc/design.md#classes), and how each is shown.  One
 * registry (classes.c) holds every class's key, label, glyph and colours,
 * so adding a class is an
 * enum value here, its row there and the rules that give regions the class
 * (classify.c); test-classes fails when a row lacks anything or when the
 * man page, the README or the shell completions do not name a class.  The
 * enum's order is the order tables list classes in when their sizes tie. */
#pragma once

enum class_id {
	CLASS_IMAGES,
	CLASS_MAPPED_FILES,
	CLASS_SHARED,
	CLASS_MALLOC,
	CLASS_STACKS,
	CLASS_PYTHON,
	CLASS_OPENBLAS,
	CLASS_MMGP_RAM,
	CLASS_JIT,
	CLASS_RUNTIME_HEAP,
	CLASS_PINNED_CUDA,
	CLASS_GPU_DRIVER,
	CLASS_CUDA_UVM,
	CLASS_NAMED,
	CLASS_OTHER,
	_CLASS_MAX
};

/* The longest key (test-classes checks each fits): keys are stored and
 * passed as words of a few letters. */
#define CLASS_KEY_MAX 23

/* The colours a terminal has for every class: the ANSI colours (SGR 30+n),
 * which curses numbers the same. */
enum class_term_colour {
	CLASS_TERM_RED = 1,
	CLASS_TERM_GREEN,
	CLASS_TERM_YELLOW,
	CLASS_TERM_BLUE,
	CLASS_TERM_MAGENTA,
	CLASS_TERM_CYAN,
	CLASS_TERM_WHITE,
};

/* "malloc", "mapped_files", ...: stable keys, used in JSON, SQL, metrics
 * labels and options ([a-z0-9_]).  "?" out of range. */
const char *class_key(enum class_id c);
/* What the class holds, for people ("C heap (glibc malloc)"): the WHAT
 * column of the tables, the census JSON's label and the HTML report's
 * legend.  "?" out of range. */
const char *class_label(enum class_id c);
/* The letter that draws the class (ramwatch top's bars and legend), one of
 * its own: a terminal without colours tells the classes apart by it.  '?'
 * out of range. */
char class_glyph(enum class_id c);
/* The glyph's colour on a terminal; colours repeat, glyphs do not.  White
 * out of range. */
enum class_term_colour class_term_colour(enum class_id c);
/* The HTML report's colour for the class, "#rrggbb", one of its own.
 * Black ("#000000") out of range. */
const char *class_html_colour(enum class_id c);

/* Returns the class with that key, or -1. */
int class_from_key(const char *key);
/* The class of a key this version writes or an earlier one wrote, for what
 * an earlier version saved (a census's JSON): "cuda_driver", gpu_driver's
 * key before database schema 10, is gpu_driver.  The database's rows are
 * rewritten by their migration instead, and options and requests take the
 * current keys only.  Returns the class, or -1. */
int class_from_saved_key(const char *key);
