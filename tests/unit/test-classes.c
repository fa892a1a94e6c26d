/* The class registry (scanner/classes.c) is whole, and what people read
 * names every class: each class has a key, a label, a glyph and colours
 * fit for their uses, none shared where they must be told apart; the man
 * page's CLASSES list, the tables of classes of README.md and
 * doc/design.md and both shell completions' lists of --class values name
 * exactly the registry's keys, in its order.  A class added to the enum
 * without its row, or to the registry without its documentation, fails
 * here by name. */
#include "testlib.h"

#include <ctype.h>

#include "census-json.h"
#include "census.h"
#include "classes.h"
#include "error.h"
#include "scan.h"
#include "util.h"

/* A file of the repository: the fixtures are in tests/data, two levels
 * below its top. */
static char *repo_file(const char *name)
{
	char path[4096];
	size_t len;
	const char *dir = getenv("RAMWATCH_TEST_DATA");
	snprintf(path, sizeof(path), "%s/../../%s", dir ? dir : "tests/data", name);
	return slurp(path, &len);
}

/* How class c is named in a failure message. */
static const char *who(int c)
{
	static char buf[64];
	const char *key = class_key((enum class_id)c);
	snprintf(buf, sizeof(buf), "class %d (%s)", c, key ? key : "no key");
	return buf;
}

static bool is_html_colour(const char *s)
{
	if (!s || strlen(s) != 7 || s[0] != '#')
		return false;
	for (int i = 1; i < 7; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

static void test_every_class_is_whole(void **state)
{
	(void)state;
	for (int c = 0; c < _CLASS_MAX; c++) {
		const char *key = class_key((enum class_id)c), *label = class_label((enum class_id)c);
		const char *html = class_html_colour((enum class_id)c);
		char glyph = class_glyph((enum class_id)c);
		int term = (int)class_term_colour((enum class_id)c);

		if (!key || !key[0])
			fail_msg("%s has no key", who(c));
		if (strlen(key) > CLASS_KEY_MAX)
			fail_msg("%s: its key is longer than CLASS_KEY_MAX (%d)", who(c), CLASS_KEY_MAX);
		/* a word for JSON, SQL, a metrics label and a shell */
		if (!islower((unsigned char)key[0]))
			fail_msg("%s: a key starts with a lower-case letter", who(c));
		for (const char *k = key; *k; k++)
			if (!islower((unsigned char)*k) && !isdigit((unsigned char)*k) && *k != '_')
				fail_msg("%s: a key is lower-case letters, digits and '_'", who(c));
		if (!label || !label[0])
			fail_msg("%s has no label (the WHAT of the tables)", who(c));
		if (!isalpha((unsigned char)glyph) || glyph == '?')
			fail_msg("%s has no glyph (a letter for ramwatch top)", who(c));
		if (term < CLASS_TERM_RED || term > CLASS_TERM_WHITE)
			fail_msg("%s has no terminal colour (1 to 7), it has %d", who(c), term);
		if (!is_html_colour(html))
			fail_msg("%s has no HTML colour (#rrggbb, lower case): %s", who(c), html ? html : "NULL");
		if (class_from_key(key) != c)
			fail_msg("%s: class_from_key finds %d", who(c), class_from_key(key));

		/* told apart: by key, by label, by glyph (top, even without
		 * colours) and by colour in the HTML report's stacked chart */
		for (int d = 0; d < c; d++) {
			if (streq(class_key((enum class_id)d), key))
				fail_msg("%s: its key is class %d's", who(c), d);
			if (streq(class_label((enum class_id)d), label))
				fail_msg("%s: its label is class %d's", who(c), d);
			if (class_glyph((enum class_id)d) == glyph)
				fail_msg("%s: its glyph '%c' is class %d's", who(c), glyph, d);
			if (streq(class_html_colour((enum class_id)d), html))
				fail_msg("%s: its HTML colour %s is class %d's", who(c), html, d);
		}
	}
	/* out of range, or not a class */
	assert_string_equal(class_key(_CLASS_MAX), "?");
	assert_string_equal(class_label(_CLASS_MAX), "?");
	assert_int_equal(class_glyph(_CLASS_MAX), '?');
	assert_int_equal(class_term_colour(_CLASS_MAX), CLASS_TERM_WHITE);
	assert_string_equal(class_html_colour(_CLASS_MAX), "#000000");
	assert_int_equal(class_from_key("no_such_class"), -1);
	assert_int_equal(class_from_key(""), -1);
	assert_int_equal(class_from_key(NULL), -1);
}

/* The words of a list of class keys, as found in a document: checks they
 * are the registry's keys, each once, in its order, naming the first
 * class missing, the first word that is no class, or the first out of
 * place. */
static void expect_keys(const char *where, char *const *words, size_t n)
{
	for (int c = 0; c < _CLASS_MAX; c++) {
		size_t seen = 0;
		for (size_t i = 0; i < n; i++)
			seen += streq(words[i], class_key((enum class_id)c));
		if (seen == 0)
			fail_msg("%s does not name the class %s", where, class_key((enum class_id)c));
		if (seen > 1)
			fail_msg("%s names the class %s %zu times", where, class_key((enum class_id)c), seen);
	}
	for (size_t i = 0; i < n; i++)
		if (class_from_key(words[i]) < 0)
			fail_msg("%s names \"%s\", which is no class", where, words[i]);
	for (size_t i = 0; i < n; i++)
		if (!streq(words[i], class_key((enum class_id)i)))
			fail_msg("%s lists %s where the registry has %s: documents list the classes in the "
				 "registry's order",
				 where, words[i], class_key((enum class_id)i));
}

/* Splits [start, end) into words at blanks, quotes and line ends. */
static size_t words_of(char *start, char *end, char **words, size_t max)
{
	size_t n = 0;
	*end = '\0';
	for (char *w = strtok(start, " \t\n\\\""); w; w = strtok(NULL, " \t\n\\\""))
		if (n < max)
			words[n++] = w;
	return n;
}

/* man/ramwatch.1's CLASSES section: a tag list with one ".It Cm KEY" per
 * class, each followed by what the class holds and how it is known. */
static void test_man_page(void **state)
{
	(void)state;
	char *man = repo_file("man/ramwatch.1"), *save = NULL;
	char *keys[_CLASS_MAX + 8];
	size_t n = 0;
	int depth = 0;
	bool said = true;

	char *section = strstr(man, "\n.Sh CLASSES\n");
	if (!section)
		fail_msg("man/ramwatch.1 has no CLASSES section");
	char *list = strstr(section, "\n.Bl ");
	char *next = strstr(section + 1, "\n.Sh ");
	if (!list || (next && list > next))
		fail_msg("man/ramwatch.1's CLASSES section has no list");
	for (char *line = strtok_r(list + 1, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (startswith(line, ".Bl "))
			depth++;
		else if (startswith(line, ".El") && --depth == 0)
			break;
		else if (depth == 1 && startswith(line, ".It Cm ")) {
			if (!said)
				fail_msg("man/ramwatch.1: the class %s is listed with nothing said of it", keys[n - 1]);
			if (n < ELEMENTSOF(keys))
				keys[n++] = line + strlen(".It Cm ");
			said = false;
			continue;
		}
		said = true;
	}
	if (!said)
		fail_msg("man/ramwatch.1: the class %s is listed with nothing said of it", keys[n - 1]);
	expect_keys("man/ramwatch.1's CLASSES", keys, n);
	free(man);
}

/* The table of classes of a document's section (heading, its line
 * whole): a header, its rule, then one row per class, "| `KEY` | ...". */
static void expect_table(const char *name, const char *heading)
{
	char *doc = repo_file(name), *save = NULL;
	char *keys[_CLASS_MAX + 8], where[128];
	size_t n = 0;

	char *section = strstr(doc, heading);
	if (!section)
		fail_msg("%s has no section \"%s\"", name, heading + 1);
	char *table = strstr(section, "\n|");
	if (!table)
		fail_msg("%s's section \"%s\" has no table", name, heading + 1);
	char *line = strtok_r(table + 1, "\n", &save);
	line = line ? strtok_r(NULL, "\n", &save) : NULL; /* the header's rule */
	for (line = line ? strtok_r(NULL, "\n", &save) : NULL; line && startswith(line, "| `");
	     line = strtok_r(NULL, "\n", &save)) {
		char *key = line + 3, *end = strchr(key, '`');
		if (!end || n == ELEMENTSOF(keys))
			break;
		*end = '\0';
		keys[n++] = key;
	}
	snprintf(where, sizeof(where), "%s's table of classes", name);
	expect_keys(where, keys, n);
	free(doc);
}

/* README.md's table of classes, "| `KEY` | what | how it is recognised |";
 * doc/design.md's, "| `KEY` | what |". */
static void test_readme_and_design(void **state)
{
	(void)state;
	expect_table("README.md", "\n## The classes\n");
	expect_table("doc/design.md", "\n### Classes\n");
}

/* The values both shells offer after --class. */
static void test_completions(void **state)
{
	(void)state;
	char *words[_CLASS_MAX + 8];

	char *bash = repo_file("completions/ramwatch.bash");
	char *start = strstr(bash, "--class) echo \"");
	if (!start)
		fail_msg("completions/ramwatch.bash offers no values for --class");
	start += strlen("--class) echo \"");
	char *end = strchr(start, '"');
	assert_non_null(end);
	expect_keys("completions/ramwatch.bash's --class values", words,
		    words_of(start, end, words, ELEMENTSOF(words)));
	free(bash);

	char *zsh = repo_file("completions/_ramwatch");
	start = strstr(zsh, "\n_ramwatch_classes=(");
	if (!start)
		fail_msg("completions/_ramwatch has no _ramwatch_classes");
	start += strlen("\n_ramwatch_classes=(");
	end = strchr(start, ')');
	assert_non_null(end);
	expect_keys("completions/_ramwatch's _ramwatch_classes", words,
		    words_of(start, end, words, ELEMENTSOF(words)));
	free(zsh);
}

/* A key a class had before is read in what was saved with it, and is no
 * key of today's: options, requests and the database take today's keys
 * (the database's rows were rewritten by migration 010). */
static void test_former_keys(void **state)
{
	(void)state;
	assert_int_equal(class_from_saved_key("cuda_driver"), CLASS_GPU_DRIVER);
	assert_int_equal(class_from_key("cuda_driver"), -1);
	for (int c = 0; c < _CLASS_MAX; c++)
		assert_int_equal(class_from_saved_key(class_key((enum class_id)c)), c);
	assert_int_equal(class_from_saved_key("no_such_class"), -1);
	assert_int_equal(class_from_saved_key(NULL), -1);
}

/* A census saved by a version before schema 10, which wrote cuda_driver
 * where this one writes gpu_driver, reads as the census it was. */
static void test_saved_census_with_a_former_key(void **state)
{
	(void)state;
	struct census *c = NULL, *old = NULL;
	struct scan_options o = { .keep_regions = true };
	struct error err;

	if (scan_smaps_file(fixture("smaps/synthetic-cuda-pytorch.smaps"), NULL, &o, &c, &err) < 0)
		fail_msg("%s", err.message);
	assert_true(c->classes[CLASS_GPU_DRIVER].count > 0);
	json_t *j = census_to_json(c, true);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	assert_non_null(text);

	/* as the earlier version wrote it */
	size_t renamed = 0;
	char *saved = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&saved, &len);
	assert_non_null(f);
	for (const char *p = text; *p;) {
		const char *at = strstr(p, "\"gpu_driver\"");
		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		fputs("\"cuda_driver\"", f);
		p = at + strlen("\"gpu_driver\"");
		renamed++;
	}
	fclose(f);
	assert_true(renamed >= 2); /* the class, and regions of it */
	assert_null(strstr(saved, "gpu_driver"));

	json_error_t jerr;
	json_t *root = json_loads(saved, 0, &jerr);
	assert_non_null(root);
	if (census_from_json(root, &old, &err) < 0)
		fail_msg("a census saved with cuda_driver: %s", err.message);
	json_decref(root);
	for (int k = 0; k < _CLASS_MAX; k++)
		if (old->classes[k].count != c->classes[k].count || old->classes[k].private != c->classes[k].private ||
		    old->classes[k].resident != c->classes[k].resident || old->classes[k].size != c->classes[k].size)
			fail_msg("class %s: not as saved", class_key((enum class_id)k));
	assert_int_equal(old->n_regions, c->n_regions);
	for (size_t i = 0; i < c->n_regions; i++)
		assert_int_equal(old->regions[i].cls, c->regions[i].cls);
	free(saved);
	free(text);
	census_free(old);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_class_is_whole),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_readme_and_design),
		cmocka_unit_test(test_completions),
		cmocka_unit_test(test_former_keys),
		cmocka_unit_test(test_saved_census_with_a_former_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
