"""doc/schema.sql is the schema of a new database: a real ramwatchd creates
one, and its tables, indexes, triggers, views and user_version, dumped as
`make schema-doc` dumps them (tests/schema-doc.py), are the file's, byte
for byte.  A migration added without `make schema-doc` fails here."""
import difflib
import importlib.util
import os

from rwdaemon import fast_config

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCHEMA_SQL = os.path.join(ROOT, "doc", "schema.sql")


def load_schema_doc():
    spec = importlib.util.spec_from_file_location("schema_doc", os.path.join(ROOT, "tests", "schema-doc.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_schema_sql_is_a_new_database(tmp_path, daemons):
    d = daemons(tmp_path, fast_config(watch="Watch=pid:1"))
    d.start()
    dumped = load_schema_doc().schema_dump(d.db_path)
    d.stop()
    with open(SCHEMA_SQL) as f:
        documented = f.read()
    diff = "".join(difflib.unified_diff(documented.splitlines(True), dumped.splitlines(True),
                                        "doc/schema.sql", "a new database of ramwatchd"))
    assert not diff, "doc/schema.sql is not the schema of a new database: run `make schema-doc`\n" + diff


def test_schema_sql_replays_into_the_same_schema(tmp_path):
    """Read by sqlite3, the file makes an empty database whose dump is the
    file again (its settings in an order SQLite honours: auto_vacuum is lost
    once anything is written), and whose every view can be read (a view
    that names a table or column the schema lacks fails)."""
    import sqlite3
    with open(SCHEMA_SQL) as f:
        documented = f.read()
    path = str(tmp_path / "replayed.db")
    db = sqlite3.connect(path)
    db.executescript(documented)
    views = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'view'")]
    assert views, "no view in doc/schema.sql"
    for view in views:
        db.execute(f'SELECT * FROM "{view}" LIMIT 0')
    db.close()
    assert load_schema_doc().schema_dump(path) == documented
