/* Rendering: aligned tables, Markdown, the census table and the diff. */
#include "testlib.h"

#include "census.h"
#include "render-census.h"
#include "render-region-changes.h"
#include "scan.h"
#include "style.h"
#include "table.h"
#include "util.h"

static __attribute__((noinline)) char *capture(int (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(fn(f, arg), 0);
	fclose(f);
	return buf;
}

static int print_text(FILE *f, void *t)
{
	return table_print(t, f);
}

static int print_md(FILE *f, void *t)
{
	return table_print_markdown(t, f);
}

static void test_table(void **state)
{
	(void)state;
	struct table *t = table_new("NAME", ">SIZE", "PATH", NULL);
	table_add(t, "libc");
	table_add(t, "1.5 MiB");
	table_add(t, "/usr/lib/libc.so.6");
	table_add(t, "a|b");
	table_addf(t, "%d B", 12);
	table_add(t, "naïve");
	assert_int_equal(table_rows(t), 2);
	char *text = capture(print_text, t);
	assert_string_equal(text, "NAME     SIZE  PATH\n"
				  "libc  1.5 MiB  /usr/lib/libc.so.6\n"
				  "a|b      12 B  naïve\n");
	free(text);
	char *md = capture(print_md, t);
	assert_string_equal(md, "| NAME | SIZE | PATH |\n|---|---:|---|\n"
				"| libc | 1.5 MiB | /usr/lib/libc.so.6 |\n"
				"| a\\|b | 12 B | naïve |\n");
	free(md);
	table_free(t);
}

static struct census *load(const char *name)
{
	struct scan_options o = { .keep_regions = true };
	struct census *c = NULL;
	struct error err;
	char path[4096];
	snprintf(path, sizeof(path), "%s", fixture(name));
	if (scan_smaps_file(path, NULL, &o, &c, &err) < 0)
		fail_msg("%s", err.message);
	return c;
}

struct render_args {
	const struct census *a, *b;
	struct render_options o;
};

static int print_census(FILE *f, void *arg)
{
	struct render_args *r = arg;
	return render_census(r->a, &r->o, f);
}

static int print_diff(FILE *f, void *arg)
{
	struct render_args *r = arg;
	return render_diff(r->a, r->b, &r->o, f);
}

static void test_census_table(void **state)
{
	(void)state;
	struct census *c = load("smaps/java17-g1.smaps");
	struct render_args r = { .a = c, .o = { .format = RENDER_TEXT, .top = 5 } };
	char *text = capture(print_census, &r);
	/* the classes, largest private first, then the total */
	char *heap = strstr(text, "\nruntime_heap "), *files = strstr(text, "\nmapped_files "),
	     *total = strstr(text, "\ntotal ");
	assert_non_null(heap);
	assert_non_null(files);
	assert_non_null(total);
	assert_true(heap < files && files < total);
	assert_non_null(strstr(text, "Largest regions"));
	assert_non_null(strstr(text, "jvm_heap: Java heap"));
	assert_non_null(strstr(text, "Mapped files and libraries"));
	/* --top 5: five regions under the header */
	char *largest = strstr(text, "Largest regions\n");
	int lines = 0;
	for (char *p = strchr(largest, '\n') + 1; *p && *p != '\n'; p = strchr(p, '\n') + 1)
		lines++;
	assert_int_equal(lines, 1 + 5);
	free(text);

	r.o.format = RENDER_MARKDOWN;
	char *md = capture(print_census, &r);
	assert_non_null(strstr(md, "## Memory of process (saved: "));
	assert_non_null(strstr(md, "| runtime_heap | 64.8 MiB | 78.8% |"));
	free(md);

	r.o = (struct render_options){ .format = RENDER_TEXT, .top = 5, .regions = true };
	char *all = capture(print_census, &r);
	assert_non_null(strstr(all, "Every region"));
	assert_non_null(strstr(all, "reserve_tail"));
	free(all);
	census_free(c);
}

static void test_diff(void **state)
{
	(void)state;
	struct census *a = load("smaps/bash.smaps"), *b = load("smaps/python3-threads.smaps");
	struct render_args r = { .a = a, .b = b, .o = { .format = RENDER_TEXT, .top = 20 } };
	char *text = capture(print_diff, &r);
	/* python grew most: it comes first */
	char *table = strstr(text, "Change by class, largest first\n");
	assert_non_null(table);
	char *first = strchr(strchr(table, '\n') + 1, '\n') + 1;
	assert_true(startswith(first, "python "));
	assert_non_null(strstr(first, "+29.8 MiB"));
	assert_non_null(strstr(text, "\ntotal "));
	assert_non_null(strstr(text, "new "));
	assert_non_null(strstr(text, "gone "));
	free(text);
	census_free(a);
	census_free(b);
}

/* The figures a heap walk would give two classes of a census: in use,
 * free, overhead, unknown and returnable that add up to their private
 * bytes. */
static void set_heap(struct census *c)
{
	uint64_t p = c->classes[CLASS_PYTHON].private, m = c->classes[CLASS_MALLOC].private;
	assert_int_equal(census_set_heap(c, CLASS_PYTHON, p / 4, p / 2, p / 8, p - p / 4 - p / 2 - p / 8, p / 4,
					 "pymalloc (CPython 3.11): 24 arenas"),
			 0);
	assert_int_equal(census_set_heap(c, CLASS_MALLOC, m / 2, m / 2 - 4096, 4096, 0, 0, "glibc 2.36: 1 arena"), 0);
}

/* The line of the table that starts with prefix (a class key and a
 * space), as a string of its own. */
static char *line_of(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix);
	assert_non_null(p);
	return strndup(p + 1, strcspn(p + 1, "\n"));
}

/* A census no allocator was read for keeps the table it always had; one
 * with a heap walk's figures shows in use and free beside private for
 * the classes that know them, "-" elsewhere, and a sentence a user can
 * act on for each, with what was read. */
static void test_census_heap(void **state)
{
	(void)state;
	struct census *c = load("smaps/python3-threads.smaps");
	struct render_args r = { .a = c, .o = { .format = RENDER_TEXT, .top = 5 } };
	char *plain = capture(print_census, &r);
	assert_null(strstr(plain, "IN USE"));
	assert_null(strstr(plain, "In use or kept"));
	assert_non_null(strstr(plain, "\nCLASS          PRIVATE  SHARE  CONFIRMED"));

	set_heap(c);
	char *text = capture(print_census, &r);
	assert_non_null(strstr(text, "\nCLASS          PRIVATE    IN USE      FREE  SHARE  CONFIRMED"));
	char *python = line_of(text, "\npython "), *other = line_of(text, "\nother "), *total = line_of(text, "\ntotal ");
	assert_non_null(strstr(python, "29.8 MiB  7.45 MiB  14.9 MiB  78.5%"));
	assert_non_null(strstr(other, "6.10 MiB         -         -  16.0%"));
	/* the totals: the sums over the classes that know them */
	assert_non_null(strstr(total, "38.0 MiB  7.83 MiB  15.3 MiB   100%"));
	assert_non_null(strstr(text, "\n  malloc: 384 KiB in use, 380 KiB free inside glibc's arenas, none of it in whole "
				     "pages the allocator could give back"));
	assert_non_null(strstr(text, "\n  python: 7.45 MiB in use, pymalloc keeps 14.9 MiB of free blocks, 7.45 MiB of it "
				     "returnable: gc.collect()"));
	assert_non_null(strstr(text, "3.73 MiB unknown (pymalloc (CPython 3.11): 24 arenas).\n"));
	/* the rest of the output is the same */
	assert_string_equal(strstr(text, "\nLargest regions"), strstr(plain, "\nLargest regions"));

	/* a walk that told nothing says unknown, and why */
	uint64_t m = c->classes[CLASS_MALLOC].private;
	assert_int_equal(census_set_heap(c, CLASS_MALLOC, 0, 0, 0, m, 0, "glibc 2.36: the heap moved while read, 3 tries"),
			 0);
	char *unknown = capture(print_census, &r);
	assert_non_null(strstr(unknown, "\n  malloc: 768 KiB unknown: glibc 2.36: the heap moved while read, 3 tries.\n"));

	r.o.format = RENDER_MARKDOWN;
	char *md = capture(print_census, &r);
	assert_non_null(strstr(md, "| python | 29.8 MiB | 7.45 MiB | 14.9 MiB | 78.5% |"));
	assert_non_null(strstr(md, "| other | 6.10 MiB | - | - | 16.0% |"));
	assert_non_null(strstr(md, "\n- python: 7.45 MiB in use"));
	free(plain);
	free(text);
	free(python);
	free(other);
	free(total);
	free(unknown);
	free(md);
	census_free(c);
}

/* The diff compares in use and free where both censuses know them, and
 * says of each class that grew whether the program holds the growth (in
 * use) or its allocator keeps it (free, with the returnable part). */
static void test_diff_heap(void **state)
{
	(void)state;
	struct census *a = load("smaps/python3-threads.smaps"), *b = load("smaps/python3-threads.smaps");
	struct render_args r = { .a = a, .b = b, .o = { .format = RENDER_TEXT, .top = 20 } };
	char *plain = capture(print_diff, &r);
	assert_null(strstr(plain, "In use and free"));

	set_heap(a);
	b->classes[CLASS_PYTHON].private += 300 * MiB;
	b->classes[CLASS_MALLOC].private += 100 * MiB;
	uint64_t p = a->classes[CLASS_PYTHON].private, m = a->classes[CLASS_MALLOC].private;
	assert_int_equal(census_set_heap(b, CLASS_PYTHON, p / 4 + 20 * MiB, p / 2 + 280 * MiB, p / 8,
					 p - p / 4 - p / 2 - p / 8, p / 4 + 250 * MiB, "pymalloc (CPython 3.11): 300 arenas"),
			 0);
	assert_int_equal(census_set_heap(b, CLASS_MALLOC, m / 2 + 100 * MiB, m / 2 - 4096, 4096, 0, 0, "glibc 2.36"), 0);
	char *text = capture(print_diff, &r);
	char *python = line_of(strstr(text, "In use and free by class"), "\npython ");
	assert_string_equal(python, "python       7.45 MiB  27.5 MiB  +20.0 MiB     14.9 MiB  295 MiB  +280 MiB");
	assert_non_null(strstr(text, "\n  python grew by 300 MiB (in use +20.0 MiB, free +280 MiB): kept by pymalloc "
				     "(fragmentation or caching), 257 MiB of its free memory returnable: gc.collect()"));
	assert_non_null(strstr(text, "\n  malloc grew by 100 MiB (in use +100 MiB, free 0 B): held by the program, a "
				     "leak candidate.\n"));
	/* a class that did not grow gets no sentence */
	assert_null(strstr(text, "images grew"));
	free(plain);
	free(text);
	free(python);
	census_free(a);
	census_free(b);
}

/* Events of three censuses folded per region: one that grew twice grew
 * once by the sum, one that came and went is not there, one that grew and
 * shrank back is not either, one that grew and went went from where it
 * was; largest first.  A bad event is refused naming it. */
static void test_region_changes(void **state)
{
	(void)state;
	json_t *events = json_loads(
		"[{\"kind\": \"grew\", \"start\": \"0x1000\", \"class\": \"malloc\", \"path\": null,"
		"  \"size\": 20, \"size_before\": 10, \"private\": 20, \"private_before\": 10},"
		" {\"kind\": \"appeared\", \"start\": \"0x9000\", \"class\": \"other\", \"path\": null,"
		"  \"size\": 500, \"size_before\": 0, \"private\": 500, \"private_before\": 0},"
		" {\"kind\": \"grew\", \"start\": \"0x5000\", \"class\": \"other\", \"path\": \"/f\","
		"  \"size\": 8, \"size_before\": 4, \"private\": 0, \"private_before\": 0},"
		" {\"kind\": \"grew\", \"start\": \"0x7000\", \"class\": \"other\", \"path\": null,"
		"  \"size\": 300, \"size_before\": 100, \"private\": 0, \"private_before\": 0},"
		" {\"kind\": \"grew\", \"start\": \"0x1000\", \"class\": \"malloc\", \"path\": null,"
		"  \"size\": 50, \"size_before\": 20, \"private\": 45, \"private_before\": 20},"
		" {\"kind\": \"disappeared\", \"start\": \"0x9000\", \"class\": \"other\", \"path\": null,"
		"  \"size\": 0, \"size_before\": 500, \"private\": 0, \"private_before\": 500},"
		" {\"kind\": \"shrank\", \"start\": \"0x5000\", \"class\": \"other\", \"path\": \"/f\","
		"  \"size\": 4, \"size_before\": 8, \"private\": 0, \"private_before\": 0},"
		" {\"kind\": \"disappeared\", \"start\": \"0x7000\", \"class\": \"other\", \"path\": null,"
		"  \"size\": 0, \"size_before\": 300, \"private\": 0, \"private_before\": 0}]",
		0, NULL);
	struct region_change *v = NULL;
	struct error err = { 0 };
	size_t n = 0;

	assert_non_null(events);
	assert_int_equal(region_changes_from_events(events, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, REGION_DISAPPEARED);
	assert_int_equal(v[0].start, 0x7000);
	assert_int_equal(v[0].size_before, 100);
	assert_int_equal(v[0].size, 0);
	assert_int_equal(v[1].kind, REGION_GREW);
	assert_int_equal(v[1].start, 0x1000);
	assert_int_equal(v[1].size_before, 10);
	assert_int_equal(v[1].size, 50);
	assert_int_equal(v[1].private_before, 10);
	assert_int_equal(v[1].private, 45);
	assert_string_equal(v[1].cls, "malloc");

	/* as a table: one row each, then how many more past top */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(render_region_changes(v, n, 1, &(struct render_options){ .format = RENDER_TEXT }, f), 0);
	fclose(f);
	assert_string_equal(text, "\nRegions that appeared, grew, shrank or disappeared, largest first\n"
				  "CHANGE        SIZE  CHANGE  PRIVATE  CHANGE  CLASS  ADDRESS  PATH\n"
				  "disappeared  100 B  -100 B      0 B     0 B  other  7000     \n"
				  "1 more\n");
	free(text);
	free(v);

	json_object_set_new(json_array_get(events, 3), "start", json_string("7000"));
	assert_int_equal(region_changes_from_events(events, &v, &n, &err), -EBADMSG);
	assert_string_equal(err.message, "region event 3: no valid \"start\"");
	json_decref(events);
}

/* Decoration only on a terminal, not with NO_COLOR set (to anything but
 * the empty string) nor with TERM=dumb. */
static void test_style(void **state)
{
	(void)state;
	assert_true(style_decorate(true, NULL, "xterm-256color"));
	assert_true(style_decorate(true, "", NULL));
	assert_false(style_decorate(false, NULL, "xterm"));
	assert_false(style_decorate(true, "1", "xterm"));
	assert_false(style_decorate(true, "0", "xterm"));
	assert_false(style_decorate(true, NULL, "dumb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_census_table),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_census_heap),
		cmocka_unit_test(test_diff_heap),
		cmocka_unit_test(test_region_changes),
		cmocka_unit_test(test_style),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
