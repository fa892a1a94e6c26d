"""ramwatch sql, the real binary on real databases: one a real ramwatchd
wrote (WAL mode, as on a host), one made with the schema's own migration
files.  Hostile queries are refused with their reason and leave the files
byte for byte as they were; every limit stops a query that goes past it;
the three formats are exact."""
import csv
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time

import pytest

from conftest import RAMWATCH
from rwdaemon import Daemon, fast_config

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "migrations")
MiB = 1024 * 1024
ETERNAL = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "


def run(*args, check=None, user=None, stdin=None, timeout=120):
    """Runs ramwatch with args; stdout and stderr as the exact text written
    (no newline translation: CSV lines end in CRLF)."""
    cmd = [RAMWATCH, *map(str, args)]
    if user:
        cmd = ["runuser", "-u", user, "--", *cmd]
    r = subprocess.run(cmd, capture_output=True, input=stdin.encode() if stdin is not None else None,
                       timeout=timeout)
    r.stdout, r.stderr = r.stdout.decode(), r.stderr.decode()
    if check is not None:
        assert r.returncode == check, f"{cmd}: exit {r.returncode}\nstdout: {r.stdout[:2000]}\nstderr: {r.stderr}"
    return r


def sql(db, query, *args, **kw):
    return run("sql", query, "--db", db, *args, **kw)


def make_schema_db(path):
    """A database made by the migration files, as the daemon would make it,
    with rows whose text needs quoting and escaping."""
    con = sqlite3.connect(path)
    names = sorted(f for f in os.listdir(SCHEMA) if f.endswith(".sql"))
    for name in names:
        with open(os.path.join(SCHEMA, name)) as f:
            con.executescript(f.read())
    con.execute(f"PRAGMA user_version = {len(names)}")
    con.executemany(
        "INSERT INTO processes (id, boot_id, pid, start_time, comm, cmdline, first_seen, last_seen, peak_private) "
        "VALUES (?, 'b', ?, 1, ?, ?, 1700000000000, 1700000060000, ?)",
        [(1, 100, "plain", 'a, "quoted"\nline', 1073741824),
         (2, 200, None, None, 3),
         (3, 300, "\x1b[31mred", "tab\there", 0)])
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def schema_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("schema") / "ramwatch.db")
    make_schema_db(path)
    return path


@pytest.fixture(scope="module")
def daemon_db(tmp_path_factory):
    """A database a real ramwatchd wrote while it watched a process."""
    tmp = tmp_path_factory.mktemp("daemon")
    target = subprocess.Popen(["sleep", "300"])
    d = Daemon(tmp, fast_config(f"Watch=pid:{target.pid}"))
    try:
        d.start()
        d.wait_rows("SELECT * FROM censuses WHERE status = 'ok'", what="a census")
        # a sleeping process is steady: its rows are one coalesced row,
        # which the view gives at both ends of its span
        d.wait_rows("SELECT * FROM memory_timeline", n=2, what="samples")
        d.wait_rows("SELECT * FROM system", n=2, what="system rows")
    finally:
        if d.proc:
            assert d.stop() == 0
        target.kill()
        target.wait()
    return d.db_path


class Files:
    """The database and its WAL as bytes, and the files beside them."""

    def __init__(self, db):
        self.db = db
        self.dir = os.path.dirname(db)
        self.before = self.read()

    def read(self):
        wal = self.db + "-wal"
        return (open(self.db, "rb").read(), open(wal, "rb").read() if os.path.exists(wal) else None,
                sorted(os.listdir(self.dir)))

    def assert_unchanged(self):
        after = self.read()
        assert after[0] == self.before[0], "the database changed"
        assert after[1] == self.before[1], "the WAL changed"
        assert after[2] == self.before[2], "files appeared or went"


# ---------------------------------------------------------------- hostile queries

HOSTILE = [
    ("INSERT INTO marks (process_id, time, name) VALUES (1, 1, 'x')", "INSERT is not allowed"),
    ("UPDATE processes SET comm = 'x'", "UPDATE is not allowed"),
    ("DELETE FROM samples", "DELETE is not allowed"),
    ("CREATE TABLE evil (x)", "changing the schema is not allowed"),
    ("CREATE TEMP TABLE evil (x)", "changing the schema is not allowed"),
    ("DROP TABLE samples", "changing the schema is not allowed"),
    ("DROP VIEW grafana_marks", "changing the schema is not allowed"),
    ("ATTACH '{dir}/evil.db' AS evil", "ATTACH (or VACUUM INTO) is not allowed"),
    ("ATTACH 'file:{dir}/evil.db?mode=rwc' AS evil", "ATTACH (or VACUUM INTO) is not allowed"),
    ("SELECT 1; ATTACH '{dir}/evil.db' AS evil", "one statement only"),
    ("SELECT 1 /* ; */;\n-- a comment\nATTACH '{dir}/evil.db' AS evil", "one statement only"),
    ("SELECT 1; SELECT 2", "one statement only; after the first comes \"SELECT 2\""),
    ("PRAGMA writable_schema=1", "PRAGMA writable_schema = 1 is not allowed"),
    ("PRAGMA journal_mode=DELETE", "PRAGMA journal_mode = DELETE is not allowed"),
    ("PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA wal_checkpoint = TRUNCATE is not allowed"),
    ("PRAGMA user_version = 1", "PRAGMA user_version = 1 is not allowed"),
    ("SELECT load_extension('{dir}/evil.so')", "the function load_extension() is not allowed"),
    ("SELECT fts3_tokenizer('simple')", "the function fts3_tokenizer() is not allowed"),
    ("VACUUM INTO '{dir}/copy.db'", "the statement is not read-only"),
    ("VACUUM", "the statement is not read-only"),
    ("BEGIN IMMEDIATE", "BEGIN is not allowed"),
    ("ANALYZE", "changing the schema is not allowed"),
    ("REINDEX", "REINDEX is not allowed"),
]


@pytest.mark.parametrize("query,why", HOSTILE, ids=[q for q, _ in HOSTILE])
def test_hostile_statement_is_refused(daemon_db, query, why):
    files = Files(daemon_db)
    query = query.format(dir=files.dir)
    r = sql(daemon_db, query, check=1)
    assert r.stderr.startswith(f"ramwatch: refused: {why}") and r.stderr.count("\n") == 1, r.stderr
    assert r.stdout == ""
    files.assert_unchanged()
    assert not os.path.exists(os.path.join(files.dir, "evil.db"))
    assert not os.path.exists(os.path.join(files.dir, "copy.db"))


def test_database_stays_as_the_daemon_left_it(daemon_db):
    """After every attempt: still WAL mode, still readable, same rows."""
    files = Files(daemon_db)
    for query, _ in HOSTILE:
        sql(daemon_db, query.format(dir=files.dir), check=1)
    files.assert_unchanged()
    con = sqlite3.connect(f"file:{daemon_db}?mode=ro", uri=True)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'evil'").fetchone()[0] == 0
    con.close()


def test_reads_what_the_daemon_wrote(daemon_db):
    con = sqlite3.connect(f"file:{daemon_db}?mode=ro", uri=True)
    want = con.execute("SELECT process_id, count(*), max(private_max) FROM samples GROUP BY process_id").fetchall()
    con.close()
    r = sql(daemon_db, "SELECT process_id, count(*) AS n, max(private_max) AS peak FROM samples GROUP BY process_id",
            "--format", "json", check=0)
    assert [(o["process_id"], o["n"], o["peak"]) for o in json.loads(r.stdout)] == want
    # the allowed PRAGMAs and table-valued functions
    r = sql(daemon_db, "PRAGMA user_version", "--format", "csv", check=0)
    assert r.stdout == f"user_version\r\n{len(os.listdir(SCHEMA))}\r\n"
    r = sql(daemon_db, "SELECT name FROM pragma_table_info('marks') ORDER BY cid", "--format", "csv", check=0)
    assert r.stdout == "name\r\nid\r\nprocess_id\r\ntime\r\nname\r\nby_uid\r\n"


# ---------------------------------------------------------------- limits

def test_time_limit(schema_db):
    start = time.monotonic()
    r = sql(schema_db, ETERNAL + "SELECT count(*) FROM r", "--timeout", "1", check=1)
    assert r.stderr == "ramwatch: stopped after 1s (--timeout)\n"
    assert time.monotonic() - start < 5


def test_time_limit_default(schema_db):
    start = time.monotonic()
    r = sql(schema_db, ETERNAL + "SELECT count(*) FROM r", check=1)
    assert r.stderr == "ramwatch: stopped after 10s (--timeout)\n"
    assert 9.5 < time.monotonic() - start < 20


def test_row_limit(schema_db):
    r = sql(schema_db, ETERNAL + "SELECT i FROM r", "--format", "csv", check=1)
    assert r.stderr == "ramwatch: stopped after 100000 rows (--max-rows)\n"
    lines = r.stdout.split("\r\n")
    assert lines[0] == "i" and lines[1] == "1" and lines[100000] == "100000" and lines[100001] == ""
    # the JSON stays whole
    r = sql(schema_db, ETERNAL + "SELECT i FROM r", "--format", "json", "--max-rows", "5", check=1)
    assert json.loads(r.stdout) == [{"i": i} for i in range(1, 6)]
    assert r.stderr == "ramwatch: stopped after 5 rows (--max-rows)\n"
    # exactly the limit is no stop
    r = sql(schema_db, "SELECT 1 UNION ALL SELECT 2", "--max-rows", "2", check=0)
    assert r.stderr == ""


def test_size_limit(schema_db):
    # 100 KiB a row: the eleventh would pass 1 MiB
    r = sql(schema_db, ETERNAL + "SELECT zeroblob(102400) AS b FROM r", "--format", "csv", "--max-bytes", "1M",
            check=1)
    assert r.stderr == "ramwatch: stopped after 10 rows: the next would pass 1.00 MiB of results (--max-bytes)\n"
    assert r.stdout.count("\r\n") == 11
    # the default: 64 MiB of 1 MB strings
    r = sql(schema_db, ETERNAL + "SELECT printf('%.*c', 1000000, 'x') AS s FROM r", "--format", "csv", check=1)
    assert r.stderr == "ramwatch: stopped after 67 rows: the next would pass 64.0 MiB of results (--max-bytes)\n"
    assert r.stdout.count("\r\n") == 68


# Starts a program from a fresh, small process and writes its peak RSS
# (bytes) to a file: a child forked from pytest would count pytest's own
# pages in its high-water mark.
MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss * 1024))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(*args):
    """Runs ramwatch; returns (exit status, stdout, stderr, peak RSS in bytes).
    A sanitized build keeps freed memory in quarantine (256 MiB by default),
    which would count as the query's: it gets a small one."""
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, ASAN_OPTIONS=(asan + ":" if asan else "") + "quarantine_size_mb=16")
    with tempfile.NamedTemporaryFile("r") as rss:
        r = subprocess.run(["/usr/bin/python3", "-c", MEASURE, rss.name, RAMWATCH, *args], capture_output=True,
                           env=env)
        return r.returncode, r.stdout.decode(), r.stderr.decode(), int(rss.read())


@pytest.mark.parametrize("query,why", [
    ("SELECT zeroblob(1e9)", "string or blob too big: values are limited to 16 MiB"),
    ("SELECT randomblob(1e9)", "string or blob too big: values are limited to 16 MiB"),
    ("WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r",
     "string or blob too big: values are limited to 16 MiB"),
    ("SELECT replace(printf('%.*c', 10000000, 'x'), 'x', 'xx')",
     "string or blob too big: values are limited to 16 MiB"),
    ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000) "
     "SELECT count(DISTINCT randomblob(1000000)) FROM r", "out of memory: the query needs more than 256 MiB"),
    ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000) "
     "SELECT max(b) FROM (SELECT randomblob(1000000) AS b FROM r ORDER BY random())",
     "out of memory: the query needs more than 256 MiB"),
])
def test_huge_values_are_refused_small(schema_db, query, why):
    # about the value and memory limits: under the sanitizers, allocating
    # the megabytes is slow enough to reach the default time limit first
    status, out, err, rss = run_measured("sql", query, "--db", schema_db, "--format", "csv", "--timeout", "120")
    assert status == 1 and why in err, err
    assert rss < 400 * MiB, f"peak RSS {rss / MiB:.0f} MiB"


def test_printf_huge_is_null(schema_db):
    # SQLite's printf stops at the value limit and answers NULL
    status, out, err, rss = run_measured("sql", "SELECT printf('%.*c', 1e9, 'x') AS s", "--db", schema_db,
                                         "--format", "json")
    assert status == 0 and json.loads(out) == [{"s": None}]
    assert rss < 100 * MiB


def test_query_text_limit(schema_db):
    long = "SELECT 1 AS one --" + "x" * (1024 * 1024)
    r = sql(schema_db, "-", stdin=long, check=1)
    assert r.stderr == "ramwatch: the query on standard input is longer than 1048576 bytes\n"
    r = run("sql", "-", "--db", schema_db, "--format", "csv", stdin=long[:1024 * 1024], check=0)
    assert r.stdout == "one\r\n1\r\n"


def test_limits_on_the_command_line(schema_db):
    for args, message in [
        (["--timeout", "0"], "--timeout takes a duration of at least 1ms and at most 1h (10, 0.5s, 2min), not '0'"),
        (["--timeout", "3601"], "--timeout takes a duration of at least 1ms and at most 1h (10, 0.5s, 2min), "
                                "not '3601'"),
        (["--timeout", "1h 1ms"], "not '1h 1ms'"),
        (["--timeout", "0.5ms"], "not '0.5ms'"),
        (["--timeout", "ten"], "not 'ten'"),
        (["--max-rows", "0"], "--max-rows takes a number from 1 to 100000000, not '0'"),
        (["--max-rows", "100000001"], "not '100000001'"),
        (["--max-bytes", "5G"], "--max-bytes takes a size from 1 to 4.00 GiB, not '5G'"),
        (["--max-bytes", "1X"], "not '1X'"),
        (["--max-bytes", "1.5"], "--max-bytes takes a size from 1 to 4.00 GiB, not '1.5'"),
        (["--max-bytes", "4.0001G"], "not '4.0001G'"),
        (["--format", "xml"], "--format takes table, csv or json, not 'xml'"),
    ]:
        r = sql(schema_db, "SELECT 1", *args, check=2)
        assert message in r.stderr and "Try 'ramwatch sql --help'" in r.stderr
    r = run("sql", check=2)
    assert "give one query" in r.stderr
    r = run("sql", "--help", check=0)
    assert r.stdout.startswith("Usage: ramwatch sql QUERY")
    # --timeout takes fractions
    r = sql(schema_db, ETERNAL + "SELECT count(*) FROM r", "--timeout", "0.5", check=1)
    assert r.stderr == "ramwatch: stopped after 500ms (--timeout)\n"
    # and units, as in ramwatchd.conf
    r = sql(schema_db, ETERNAL + "SELECT count(*) FROM r", "--timeout", "500ms", check=1)
    assert r.stderr == "ramwatch: stopped after 500ms (--timeout)\n"
    r = sql(schema_db, ETERNAL + "SELECT count(*) FROM r", "--timeout", "0.01min", check=1)
    assert r.stderr == "ramwatch: stopped after 600ms (--timeout)\n"


def test_table_columns(schema_db):
    # every column of the widest table is shown
    r = sql(schema_db, "SELECT * FROM censuses", check=0)
    assert r.stdout.splitlines()[0].split()[:3] == ["id", "process_id", "time"]
    fits = "SELECT " + ", ".join(f"{i} AS c{i}" for i in range(64))
    r = sql(schema_db, fits, check=0)
    assert r.stdout.splitlines()[1].split() == [str(i) for i in range(64)]
    wide = "SELECT " + ", ".join(f"{i} AS c{i}" for i in range(65))
    r = sql(schema_db, wide, check=1)
    assert r.stderr == ("ramwatch: the table format shows at most 64 columns and the query has 65: "
                        "use --format csv or --format json\n")
    r = sql(schema_db, wide, "--format", "csv", check=0)
    assert r.stdout.split("\r\n")[1] == ",".join(str(i) for i in range(65))
    r = sql(schema_db, "SELECT " + ", ".join(["1"] * 257), "--format", "csv", check=1)
    assert r.stderr == "ramwatch: too many columns in result set\n"


# ---------------------------------------------------------------- output

def test_table_output(schema_db):
    r = sql(schema_db, "SELECT pid, comm, cmdline, peak_private / 3.0 AS third FROM processes ORDER BY pid",
            check=0)
    # numbers to the right; control characters escaped for the terminal
    assert r.stdout == (
        "pid  comm         cmdline                        third\n"
        "100  plain        a, \"quoted\"\\nline  357913941.3333333\n"
        "200  NULL         NULL                             1.0\n"
        "300  \\x1b[31mred  tab\\there                        0.0\n")


def test_table_output_of_values(schema_db):
    r = sql(schema_db, "SELECT 1.0 AS r, 0.1 + 0.2 AS s, x'00ff' AS b, NULL AS n, '' AS e, "
            "9223372036854775807 AS big, 9e999 AS inf, -2 AS neg", check=0)
    assert r.stdout == (
        "  r                    s  b     n     e                  big  inf  neg\n"
        "1.0  0.30000000000000004  00FF  NULL     9223372036854775807  Inf   -2\n")
    # no rows: the header alone
    r = sql(schema_db, "SELECT pid, comm FROM processes WHERE pid < 0", check=0)
    assert r.stdout == "pid  comm\n"


def test_csv_output(schema_db):
    r = sql(schema_db, "SELECT pid, comm, cmdline, peak_private / 3.0 AS third FROM processes ORDER BY pid",
            "--format", "csv", check=0)
    assert r.stdout == (
        "pid,comm,cmdline,third\r\n"
        "100,plain,\"a, \"\"quoted\"\"\nline\",357913941.3333333\r\n"
        "200,,,1.0\r\n"
        "300,\x1b[31mred,tab\there,0.0\r\n")
    rows = list(csv.reader(io.StringIO(r.stdout, newline="")))
    assert rows[1] == ["100", "plain", 'a, "quoted"\nline', "357913941.3333333"]
    r = sql(schema_db, "SELECT 1.0 AS r, 0.1 + 0.2 AS s, x'00ff' AS b, NULL AS n, '' AS e, "
            "9223372036854775807 AS big, 9e999 AS inf, -2 AS \"a,b\"", "--format", "csv", check=0)
    assert r.stdout == "r,s,b,n,e,big,inf,\"a,b\"\r\n1.0,0.30000000000000004,00FF,,\"\",9223372036854775807,Inf,-2\r\n"


def test_json_output(schema_db):
    r = sql(schema_db, "SELECT pid, comm, cmdline, peak_private / 3.0 AS third FROM processes ORDER BY pid",
            "--format", "json", check=0)
    assert r.stdout == (
        "[\n"
        "{\"pid\":100,\"comm\":\"plain\",\"cmdline\":\"a, \\\"quoted\\\"\\nline\",\"third\":357913941.3333333},\n"
        "{\"pid\":200,\"comm\":null,\"cmdline\":null,\"third\":1.0},\n"
        "{\"pid\":300,\"comm\":\"\\u001b[31mred\",\"cmdline\":\"tab\\there\",\"third\":0.0}\n"
        "]\n")
    rows = json.loads(r.stdout)
    assert rows[0]["third"] == 1073741824 / 3 and rows[1]["comm"] is None
    r = sql(schema_db, "SELECT 1.0 AS r, 0.1 + 0.2 AS s, x'00ff' AS b, NULL AS n, '' AS e, "
            "9223372036854775807 AS big, -9e999 AS inf, -2 AS neg, CAST(x'ff41' AS TEXT) AS bad", "--format", "json",
            check=0)
    assert r.stdout == ("[\n{\"r\":1.0,\"s\":0.30000000000000004,\"b\":\"00FF\",\"n\":null,\"e\":\"\","
                        "\"big\":9223372036854775807,\"inf\":-9e999,\"neg\":-2,\"bad\":\"\ufffdA\"}\n]\n")
    [row] = json.loads(r.stdout)
    assert type(row["r"]) is float and type(row["big"]) is int and row["inf"] == float("-inf")
    r = sql(schema_db, "SELECT 1 AS x WHERE 0", "--format", "json", check=0)
    assert r.stdout == "[]\n"


def test_output_stays_whole_on_an_error(schema_db):
    r = sql(schema_db, "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) AS n "
            "FROM r", "--format", "json", check=1)
    assert [o["n"] for o in json.loads(r.stdout)] == [2 ** i for i in range(24)]
    assert "string or blob too big" in r.stderr


def test_sql_errors(schema_db):
    r = sql(schema_db, "SELEC 1", check=1)
    assert r.stderr == "ramwatch: near \"SELEC\": syntax error\n"
    r = sql(schema_db, "SELECT * FROM no_such_table", check=1)
    assert r.stderr == "ramwatch: no such table: no_such_table\n"
    r = sql(schema_db, "SELECT time FROM grafana_process_memory WHERE time_ms >= $__from", check=1)
    assert "the query has parameters ($__from)" in r.stderr
    # "--" ends the options, so a query may start with a comment
    r = run("sql", "--db", schema_db, "--", "-- nothing", check=1)
    assert r.stderr == "ramwatch: no statement: the query is empty\n"
    r = run("sql", "--db", schema_db, "--format", "csv", "--", "-- the answer\nSELECT 42 AS a", check=0)
    assert r.stdout == "a\r\n42\r\n"


# ---------------------------------------------------------------- the file

def test_missing_database(tmp_path):
    db = tmp_path / "none.db"
    r = run("sql", "SELECT 1", "--db", db, check=1)
    assert r.stderr == (f"ramwatch: cannot open {db}: No such file or directory — ramwatchd creates it when it "
                        "starts; --db or $RAMWATCH_DB name another\n")
    assert not db.exists()


def test_database_from_the_environment(schema_db, tmp_path):
    env = dict(os.environ, RAMWATCH_DB=schema_db)
    r = subprocess.run([RAMWATCH, "sql", "SELECT count(*) AS n FROM processes", "--format", "csv"], env=env,
                       capture_output=True)
    assert r.returncode == 0 and r.stdout == b"n\r\n3\r\n"
    # --db wins
    r = subprocess.run([RAMWATCH, "sql", "SELECT 1", "--db", str(tmp_path / "other.db")], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "other.db" in r.stderr
    # the default path, when neither is given
    env.pop("RAMWATCH_DB")
    r = subprocess.run([RAMWATCH, "sql", "SELECT 1"], env=env, capture_output=True, text=True)
    assert "/var/lib/ramwatch/ramwatch.db" in r.stderr or r.returncode == 0


def test_path_is_never_a_uri(schema_db, tmp_path):
    shutil.copy(schema_db, tmp_path / "file:copy.db")
    r = subprocess.run([RAMWATCH, "sql", "SELECT count(*) AS n FROM processes", "--db", "file:copy.db",
                        "--format", "csv"], cwd=tmp_path, capture_output=True)
    assert r.returncode == 0 and r.stdout == b"n\r\n3\r\n"
    r = subprocess.run([RAMWATCH, "sql", "SELECT 1", "--db", "file:made.db?mode=rwc"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "No such file or directory" in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["file:copy.db"]


def test_query_from_standard_input(schema_db):
    r = run("sql", "-", "--db", schema_db, "--format", "csv", stdin="SELECT 42 AS answer; -- the end\n", check=0)
    assert r.stdout == "answer\r\n42\r\n"


@pytest.fixture
def shared_dir():
    """A directory every user may enter (pytest's own is root's alone)."""
    d = tempfile.mkdtemp(prefix="ramwatch-sql-")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_unprivileged_user(unprivileged_user, schema_db, daemon_db, shared_dir):
    db = os.path.join(shared_dir, "ramwatch.db")
    shutil.copy(schema_db, db)
    os.chown(db, 0, 0)
    os.chmod(db, 0o640)
    r = run("sql", "SELECT count(*) FROM processes", "--db", db, user=unprivileged_user, check=1)
    assert r.stderr == (f"ramwatch: cannot open {db}: Permission denied — the database is readable by root and "
                        "group ramwatch\n")
    assert r.stdout == ""
    # in the database's group, the user reads it (as group ramwatch does)
    gid = int(subprocess.run(["id", "-g", unprivileged_user], capture_output=True, text=True).stdout)
    os.chown(db, 0, gid)
    r = run("sql", "SELECT count(*) AS n FROM processes", "--db", db, "--format", "csv", user=unprivileged_user,
            check=0)
    assert r.stdout == "n\r\n3\r\n"
    # ... also a WAL database as the daemon leaves it, with its -wal and -shm
    wal_dir = os.path.join(shared_dir, "wal")
    os.mkdir(wal_dir)
    os.chmod(wal_dir, 0o755)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(daemon_db + suffix):
            dest = os.path.join(wal_dir, "ramwatch.db" + suffix)
            shutil.copy(daemon_db + suffix, dest)
            os.chown(dest, 0, gid)
            os.chmod(dest, 0o640)
    files = Files(os.path.join(wal_dir, "ramwatch.db"))
    r = run("sql", "SELECT count(*) > 0 AS some FROM samples", "--db", files.db, "--format", "csv",
            user=unprivileged_user, check=0)
    assert r.stdout == "some\r\n1\r\n"
    r = run("sql", "DELETE FROM samples", "--db", files.db, user=unprivileged_user, check=1)
    assert "DELETE is not allowed" in r.stderr
    files.assert_unchanged()
