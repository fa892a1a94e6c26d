/* The counters of a census's summary are declared once
 * (scanner/census-counters.h): every counter must reach every place its
 * entry says it goes, and be missing from the places it says it does not.
 * The list is walked here against what a user sees: the columns of a new
 * database, a census stored and read back (the census answer, its JSON
 * read again, the rows in SQL, the history answer's classes), the census's
 * own JSON written and read, the metrics per class; a light census; and
 * censuses stored before the database kept the totals' locked, hugetlb and
 * confirmed, which must read back as unknown (or, for confirmed, as the
 * sum of their classes), never as 0. */
#include "test-store-read-lib.h"

#include "census-json.h"
#include "export-text.h"
#include "man-testlib.h"
#include "render-census.h"
#include "store-migrations.h"
#include "util.h"

/* the columns of census_class_rows that are no counter: the keys, and how
 * a heap walk knew the heap counters (census.h, how) */
static const char *const keys_of_class_rows[] = { "census_id", "class", "gone", "how" };

/* A value for counter i of class k (k = _CLASS_MAX: the totals), one of a
 * kind so that no counter can be read for another. */
static uint64_t value(int k, int i)
{
	return 1000000 * (uint64_t)(k + 1) + 1000 * (uint64_t)(i + 1);
}

/* The Java fixture's census with every counter of every class it has, and
 * of its totals, at value(), and known. */
static struct census *census_of_values(void)
{
	struct census *c = java_census();
	c->unknown_totals = 0;
	memset(c->unknown_classes, 0, sizeof(c->unknown_classes));
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		*census_counter(&c->totals, i) = value(_CLASS_MAX, i);
		for (int k = 0; k < _CLASS_MAX; k++)
			if (c->classes[k].count > 0 && i != CENSUS_COUNTER_count)
				*census_counter(&c->classes[k], i) = value(k, i);
	}
	c->totals.count = value(_CLASS_MAX, CENSUS_COUNTER_count);
	return c;
}

/* Whether table (or view) has column name, and its declared type in *type. */
static bool has_column(const char *db_path, const char *table, const char *name, char *type, size_t size)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	bool found = false;
	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT type FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = true;
		if (type)
			snprintf(type, size, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return found;
}

/* Whether counter i of class k is unknown in census c read back: a
 * counter the classes do not keep, and a heap walk's counters of a class
 * the census did not find (the census gives no object, no row, for it). */
static bool unknown_read_back(const struct census *c, int k, int i)
{
	return !census_counters[i].per_class || (c->classes[k].count == 0 && (CENSUS_HEAP_COUNTERS & (1u << i)));
}

static int64_t proc(struct tmp *t)
{
	return put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
						 .first_seen = H0, .last_seen = H0 + HOUR, .exited_at = -1 });
}

static json_t *stored_census(struct tmp *t, int64_t at)
{
	struct store_select sel = by_pid(4242, -1);
	struct error err;
	json_t *o = NULL;
	if (store_read_census(reader_of(t), &sel, at, &o, &err) < 0)
		fail_msg("census: %s", err.message);
	return o;
}

static json_t *class_of(const json_t *census, const char *key)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(census, "classes"), i, v)
		if (streq(json_string_value(json_object_get(v, "key")), key))
			return v;
	fail_msg("no class %s", key);
	return NULL;
}

static void assert_json_value(const json_t *o, const char *key, uint64_t want, const char *what)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v) || (uint64_t)json_integer_value(v) != want)
		fail_msg("%s: %s is not %llu", what, key, (unsigned long long)want);
}

/* ------------------------------------------------------------ the list */

static void test_list_is_the_database(void **state)
{
	struct tmp *t = *state;
	char type[32];

	writer_of(t);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		if (!has_column(t->db, "censuses", k->total_key, type, sizeof(type)))
			fail_msg("censuses has no column %s for the totals' %s: a migration must add it", k->total_key,
				 k->name);
		assert_string_equal(type, "INTEGER");
		if (k->per_class != has_column(t->db, "census_class_rows", k->class_key, type, sizeof(type)))
			fail_msg("census_class_rows %s column %s, and the list says the class rows %s %s",
				 k->per_class ? "has no" : "has a", k->class_key, k->per_class ? "keep" : "do not keep",
				 k->name);
		/* the view has the table's columns */
		if (k->per_class != has_column(t->db, "census_classes", k->class_key, NULL, 0))
			fail_msg("the view census_classes %s column %s: a migration that adds a column to "
				 "census_class_rows makes the view again (and the trigger censuses_rekey)",
				 k->per_class ? "has no" : "has a", k->class_key);
		/* what goes to history or the metrics is a class's */
		assert_true(!k->history || k->per_class);
		assert_true(!k->metric || k->per_class);
		/* the metrics have no null: a counter a census may not know is
		 * none of theirs */
		if (k->metric && k->optional)
			fail_msg("%s: metric yes and optional yes; the metrics would say 0 for a class that does "
				 "not know it",
				 k->name);
		/* a counter the first census format lacked must be optional */
		assert_true(k->per_class || k->optional);
	}
	/* and nothing in the class rows that the list does not name */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(t->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('census_class_rows')", -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		bool found = false;
		for (size_t j = 0; j < ELEMENTSOF(keys_of_class_rows); j++)
			found |= streq(name, keys_of_class_rows[j]);
		for (int i = 0; i < _CENSUS_N_COUNTERS; i++)
			found |= census_counters[i].per_class && streq(name, census_counters[i].class_key);
		if (!found)
			fail_msg("census_class_rows.%s is not in CENSUS_COUNTERS", name);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* ------------------------------------------------------------ a census stored */

static void test_every_counter_reaches_every_output(void **state)
{
	struct tmp *t = *state;
	struct census *c = census_of_values(), *back = NULL;
	struct error err;
	int64_t id, census_id;

	begin(t);
	id = proc(t);
	census_id = put_census(t, id, H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
	commit(t);

	/* the rows, in SQL */
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM censuses WHERE id = %lld", k->total_key,
				       (long long)census_id),
				 value(_CLASS_MAX, i));
		for (int j = 0; j < _CLASS_MAX && k->per_class; j++) {
			if (c->classes[j].count == 0)
				continue;
			assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM census_classes WHERE census_id = %lld AND class = %Q",
					       k->class_key, (long long)census_id, class_key(j)),
					 census_counter_value(&c->classes[j], i));
		}
	}

	/* the census answer: every counter of the totals, and of each class
	 * those a class keeps, none it does not */
	json_t *o = stored_census(t, INT64_MAX), *totals = json_object_get(o, "totals");
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		assert_json_value(totals, k->total_key, value(_CLASS_MAX, i), "the stored totals");
		for (int j = 0; j < _CLASS_MAX; j++) {
			if (c->classes[j].count == 0)
				continue;
			json_t *x = class_of(o, class_key(j));
			if (k->per_class)
				assert_json_value(x, k->class_key, census_counter_value(&c->classes[j], i), class_key(j));
			else
				assert_null(json_object_get(x, k->class_key));
		}
	}
	/* read again by the client, it is the census stored; what a class
	 * does not keep is unknown per class */
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_int_equal(back->unknown_totals, 0);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		assert_int_equal(census_counter_value(&back->totals, i), value(_CLASS_MAX, i));
		for (int j = 0; j < _CLASS_MAX; j++)
			assert_int_equal(!!(back->unknown_classes[j] & (1u << i)), unknown_read_back(c, j, i));
		for (int j = 0; j < _CLASS_MAX && census_counters[i].per_class; j++)
			assert_int_equal(census_counter_value(&back->classes[j], i), census_counter_value(&c->classes[j], i));
	}
	census_free(back);
	json_decref(o);

	/* the history answer's census: the classes' history counters, no other */
	struct store_history_query q = { .sel = by_pid(4242, -1), .since = H0, .until = H0 + HOUR };
	json_t *h = NULL;
	assert_int_equal(store_read_history(reader_of(t), &q, &h, &err), 0);
	json_t *classes = json_object_get(json_array_get(json_object_get(h, "censuses"), 0), "classes");
	for (int j = 0; j < _CLASS_MAX; j++) {
		if (c->classes[j].count == 0)
			continue;
		json_t *x = json_object_get(classes, class_key(j));
		assert_non_null(x);
		for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
			const struct census_counter_info *k = &census_counters[i];
			if (k->history)
				assert_json_value(x, k->class_key, census_counter_value(&c->classes[j], i), "history");
			else if (json_object_get(x, k->class_key))
				fail_msg("history's classes give %s, which the list says they do not", k->name);
		}
	}
	json_decref(h);
	census_free(c);
}

/* The census's own JSON, written and read (ramwatch scan --json, summary,
 * diff of two files): every counter of the totals, those of the classes
 * a class keeps. */
static void test_census_json_carries_every_counter(void **state)
{
	(void)state;
	struct census *c = census_of_values(), *back = NULL;
	struct error err;
	json_t *o = census_to_json(c, false);

	assert_non_null(o);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++)
		assert_json_value(json_object_get(o, "totals"), census_counters[i].total_key, value(_CLASS_MAX, i),
				  "the census's totals");
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_int_equal(back->unknown_totals, 0);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		assert_int_equal(census_counter_value(&back->totals, i), value(_CLASS_MAX, i));
		for (int j = 0; j < _CLASS_MAX; j++)
			assert_int_equal(!!(back->unknown_classes[j] & (1u << i)), unknown_read_back(c, j, i));
		for (int j = 0; j < _CLASS_MAX && census_counters[i].per_class; j++)
			assert_int_equal(census_counter_value(&back->classes[j], i), census_counter_value(&c->classes[j], i));
	}
	/* an optional counter a file lacks, or gives as null, is unknown; a
	 * required one the file must give */
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		json_t *copy = json_deep_copy(o);
		struct census *x = NULL;
		json_object_del(json_object_get(copy, "totals"), census_counters[i].total_key);
		int r = census_from_json(copy, &x, &err);
		if (census_counters[i].optional) {
			assert_int_equal(r, 0);
			assert_true(x->unknown_totals & (1u << i));
			/* and said so again */
			json_t *again = census_to_json(x, false);
			assert_true(json_is_null(json_object_get(json_object_get(again, "totals"), census_counters[i].total_key)));
			json_decref(again);
		} else {
			assert_int_equal(r, -EBADMSG);
		}
		census_free(x);
		json_decref(copy);
	}
	census_free(back);
	json_decref(o);
	census_free(c);
}

static void test_metrics_give_the_metric_counters(void **state)
{
	(void)state;
	struct census *c = census_of_values();
	struct export_classes classes;
	struct export_process p = { .comm = "java", .uid = 1000, .user = "ana", .classes = &classes };
	struct export_daemon d = { .version = "0" };
	char *text = NULL, line[200];
	size_t len = 0;

	export_classes_from_census(c, &classes);
	assert_int_equal(export_text_build(&d, &p, 1, EXPORT_GROUP_COMM, &text, &len), 0);
	for (int j = 0; j < _CLASS_MAX; j++) {
		if (c->classes[j].count == 0)
			continue;
		for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
			const struct census_counter_info *k = &census_counters[i];
			snprintf(line, sizeof(line), "\nramwatch_memory_bytes{group=\"java\",class=\"%s\",kind=\"%s\"} %llu\n",
				 class_key(j), k->name, (unsigned long long)census_counter_value(&c->classes[j], i));
			if (k->metric != (strstr(text, line) != NULL))
				fail_msg("the metrics %s %s of class %s:\n%s", k->metric ? "lack" : "give", k->name,
					 class_key(j), text);
		}
	}
	free(text);
	census_free(c);
}

/* An optional counter one class knows and another does not (no
 * allocator accounts for the other's memory): null in that class alone,
 * through the census's JSON, the database and the census read back. */
static void test_a_class_may_not_know_a_counter(void **state)
{
	struct tmp *t = *state;
	struct error err;
	int tried = 0;

	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		if (!k->per_class || !k->optional)
			continue;
		struct census *c = census_of_values(), *back = NULL;
		int known = 0, unknown;
		while (c->classes[known].count == 0)
			known++;
		unknown = known + 1;
		while (c->classes[unknown].count == 0)
			unknown++;
		c->unknown_classes[unknown] |= 1u << i;

		/* the census's own JSON, written and read */
		json_t *o = census_to_json(c, false);
		assert_true(json_is_null(json_object_get(class_of(o, class_key(unknown)), k->class_key)));
		assert_json_value(class_of(o, class_key(known)), k->class_key, value(known, i), "the known class");
		assert_int_equal(census_from_json(o, &back, &err), 0);
		if (!(back->unknown_classes[unknown] & (1u << i)) || (back->unknown_classes[known] & (1u << i)))
			fail_msg("%s: read back from JSON, unknown in the wrong classes", k->name);
		assert_int_equal(census_counter_value(&back->classes[known], i), value(known, i));
		census_free(back);
		json_decref(o);

		/* stored and read back */
		begin(t);
		int64_t census_id = put_census(t, proc(t), H0 + MINUTE + tried, TRIGGER_FIRST, CENSUS_OK, c);
		commit(t);
		assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM census_classes WHERE census_id = %lld AND class = %Q",
				       k->class_key, (long long)census_id, class_key(unknown)),
				 -1);
		assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM census_classes WHERE census_id = %lld AND class = %Q",
				       k->class_key, (long long)census_id, class_key(known)),
				 value(known, i));
		o = stored_census(t, INT64_MAX);
		assert_true(json_is_null(json_object_get(class_of(o, class_key(unknown)), k->class_key)));
		assert_int_equal(census_from_json(o, &back, &err), 0);
		if (!(back->unknown_classes[unknown] & (1u << i)) || (back->unknown_classes[known] & (1u << i)))
			fail_msg("%s: read back from the store, unknown in the wrong classes", k->name);
		census_free(back);
		json_decref(o);
		census_free(c);
		tried++;
	}
	assert_true(tried > 0);
}

/* ------------------------------------------------------------ light censuses */

static void test_light_census_stores_what_it_read(void **state)
{
	struct tmp *t = *state;
	struct census *c = census_of_values(), *back = NULL;
	struct error err;
	int64_t census_id;

	/* a light census has its totals and each class's size and count; the
	 * rest is 0, as the scanner leaves it */
	c->light = true;
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		if (!census_counters[i].light_total)
			*census_counter(&c->totals, i) = 0;
		for (int j = 0; j < _CLASS_MAX; j++)
			if (!census_counters[i].light_class)
				*census_counter(&c->classes[j], i) = 0;
	}
	begin(t);
	census_id = put_census(t, proc(t), H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
	commit(t);
	int some = 0;
	while (c->classes[some].count == 0)
		some++;
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		int64_t v = q_int_at(t->db, "SELECT \"%w\" FROM censuses WHERE id = %lld", k->total_key, (long long)census_id);
		/* not read: NULL in the database */
		assert_int_equal(v, k->light_total ? (int64_t)value(_CLASS_MAX, i) : -1);
		if (k->per_class)
			assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM census_classes WHERE census_id = %lld AND class = %Q",
					       k->class_key, (long long)census_id, class_key(some)) < 0,
					 !k->light_class);
	}
	/* read back: the census as it was, 0 where it read nothing, nothing
	 * unknown */
	json_t *o = stored_census(t, INT64_MAX), *taken = census_to_json(c, false);
	assert_true(json_equal(json_object_get(o, "totals"), json_object_get(taken, "totals")));
	assert_true(json_equal(json_object_get(o, "classes"), json_object_get(taken, "classes")));
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_int_equal(back->unknown_totals, 0);
	census_free(back);
	json_decref(taken);
	json_decref(o);
	census_free(c);
}

/* ------------------------------------------------------------ censuses stored before */

/* A database of schema 10 with two censuses as that schema stored them:
 * one whose classes know what is confirmed, one from before schema 5
 * whose classes do not.  Once migrated, neither says 0 for what was not
 * kept: locked and hugetlb (and any total a later schema adds) are
 * unknown; confirmed is the classes' sum, or unknown. */
static void test_old_censuses_read_back_unknown(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(sqlite3_open_v2(t->db, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	for (size_t i = 0; i < store_n_migrations && store_migrations[i].version <= 10; i++)
		if (sqlite3_exec(db, store_migrations[i].sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("migration %d: %s", store_migrations[i].version, msg);
	if (sqlite3_exec(db,
			 "PRAGMA user_version = 10;"
			 "INSERT INTO processes (boot_id, pid, start_time, uid, comm, first_seen, last_seen)"
			 " VALUES ('boot-a', 4242, 77, 1000, 'java', 1000, 5000);"
			 "INSERT INTO censuses (process_id, time, trigger, status, private, resident, pss, swap, size, regions)"
			 " VALUES (1, 2000, 'first', 'ok', 300, 400, 350, 0, 8192, 2),"
			 "        (1, 3000, 'interval', 'ok', 300, 400, 350, 0, 8192, 2);"
			 "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed)"
			 " VALUES (1, 'malloc', 200, 250, 220, 0, 4096, 1, 150), (1, 'stacks', 100, 150, 130, 0, 4096, 1, 100),"
			 "        (2, 'malloc', 200, 250, 220, 0, 4096, 1, NULL), (2, 'stacks', 100, 150, 130, 0, 4096, 1, NULL);",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("old censuses: %s", msg);
	sqlite3_close(db);
	/* the totals schema 10 had columns for */
	bool had[_CENSUS_N_COUNTERS];
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++)
		had[i] = has_column(t->db, "censuses", census_counters[i].total_key, NULL, 0);
	assert_false(had[CENSUS_COUNTER_confirmed] || had[CENSUS_COUNTER_locked] || had[CENSUS_COUNTER_hugetlb]);

	writer_of(t); /* migrates */
	assert_int_equal(store_schema_version(t->s), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int_at(t->db, "SELECT confirmed FROM censuses WHERE id = 1"), 250);
	assert_int_equal(q_int_at(t->db, "SELECT confirmed FROM censuses WHERE id = 2"), -1);

	for (int at = 2000; at <= 3000; at += 1000) {
		json_t *o = stored_census(t, at), *totals = json_object_get(o, "totals");
		struct census *back = NULL;
		struct error err;
		for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
			const char *key = census_counters[i].total_key;
			/* what schema 10 did not keep; but confirmed, which the classes
			 * of the first census give */
			bool unknown = !had[i] && !(i == CENSUS_COUNTER_confirmed && at == 2000);
			if (unknown != json_is_null(json_object_get(totals, key)))
				fail_msg("census at %d: totals.%s %s", at, key, unknown ? "is not null" : "is null");
		}
		assert_int_equal(json_is_null(json_object_get(class_of(o, "malloc"), "confirmed")), at == 3000);
		/* the report says unknown, not 0 % */
		assert_int_equal(census_from_json(o, &back, &err), 0);
		assert_true(back->unknown_totals & CENSUS_COUNTER_BIT(locked));
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct render_options ro = { .format = RENDER_MARKDOWN, .top = 5 };
		assert_int_equal(render_census(back, &ro, f), 0);
		fclose(f);
		const char *total = strstr(text, "| total |");
		assert_non_null(total);
		if (at == 2000)
			assert_non_null(strstr(total, "| 100% | 83.3% |"));
		else
			assert_non_null(strstr(total, "| 100% | unknown |"));
		free(text);
		census_free(back);
		json_decref(o);
	}
}

/* ------------------------------------------------------------ the manual */

/* ramwatch-schema(7), ramwatch(1) and doc/census-format.md describe every
 * counter where it goes. */
static void test_every_counter_is_documented(void **state)
{
	(void)state;
	char *censuses = man_section("ramwatch-schema.7", ".Ss censuses", ".Ss "),
	     *classes = man_section("ramwatch-schema.7", ".Ss census_classes", ".Ss "),
	     *json = man_section("ramwatch.1", ".Sh JSON", ".Sh ");
	char *start = strstr(json, ".It Cm totals"), *middle = strstr(json, ".It Cm classes"),
	     *end = strstr(json, ".It Cm largest");

	assert_true(start && middle && end && start < middle && middle < end);
	char *totals = strndup(start, (size_t)(middle - start)), *class_list = strndup(middle, (size_t)(end - middle));
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *k = &census_counters[i];
		if (!man_names(censuses, k->total_key))
			fail_msg("ramwatch-schema(7) does not describe censuses.%s", k->total_key);
		if (k->per_class && !man_names(classes, k->class_key))
			fail_msg("ramwatch-schema(7) does not describe census_classes.%s", k->class_key);
		if (!man_names(totals, k->total_key))
			fail_msg("ramwatch(1) does not list totals.%s of the census JSON", k->total_key);
		if (k->per_class && !man_names(class_list, k->class_key))
			fail_msg("ramwatch(1) does not list %s of a class of the census JSON", k->class_key);
	}
	free(censuses);
	free(classes);
	free(totals);
	free(class_list);
	free(json);

	/* doc/census-format.md: its tables of the totals and of a class */
	char path[4200], *doc;
	size_t len;
	snprintf(path, sizeof(path), "%s/../../%s", fixture(""), "doc/census-format.md");
	doc = slurp(path, &len);
	char *t = strstr(doc, "\n## totals\n"), *k = t ? strstr(t, "\n## classes\n") : NULL,
	     *e = k ? strstr(k + 1, "\n## ") : NULL;
	assert_true(t && k && e);
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		const struct census_counter_info *c = &census_counters[i];
		char want[64];
		snprintf(want, sizeof(want), "`%s`", c->total_key);
		if (!memmem(t, (size_t)(k - t), want, strlen(want)))
			fail_msg("doc/census-format.md, totals: no row for `%s`", c->total_key);
		snprintf(want, sizeof(want), "`%s`", c->class_key);
		if (c->per_class && !memmem(k, (size_t)(e - k), want, strlen(want)))
			fail_msg("doc/census-format.md, classes: no row for `%s`", c->class_key);
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_is_the_database, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_every_counter_reaches_every_output, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_census_json_carries_every_counter),
		cmocka_unit_test(test_metrics_give_the_metric_counters),
		cmocka_unit_test_setup_teardown(test_a_class_may_not_know_a_counter, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_light_census_stores_what_it_read, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_old_censuses_read_back_unknown, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_every_counter_is_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
