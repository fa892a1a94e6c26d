"""One database format on both platforms: a database written under Wine
through the store (schema/store.c, cross-built with SQLite from Debian's
source package) passes Linux's PRAGMA integrity_check and answers the
views to Linux's ramwatch sql --db; a database the Linux build wrote with
the same rows (tests/windows/storewrite.c) is read by ramwatch.exe sql
--db; and all four ways give the same answers.  A Windows process is
stored with its platform and its account, a Linux one with its uid.
Run by make check-windows."""
import json
import os
import re
import sqlite3
import subprocess

import pytest

from wine import BUILD, EXE, LINUX, ROOT, WIN, WINE, session, winpath

STOREWRITE_EXE = os.path.join(WIN, "tests", "storewrite.exe")
STOREWRITE = os.path.join(BUILD, "tests", "storewrite")
CAPTURE = os.path.join(ROOT, "tests", "data", "windows", "wine-holder.json")
MiB = 1024 ** 2
T0 = 1700000000  # the first row's time, unix seconds (storewrite.c)

# Every view a person or a dashboard reads, in an order that holds whatever
# wrote the file; the census's own views are compared whole below.
VIEWS = {
    "process_labels": "process_id",
    "memory_timeline": "process_id, time",
    "census_log": "census_id",
    "class_timeline": "census_id, class",
    "annotations": "time",
    "machine_memory": "time",
    "grafana_process_memory": "process_id, kind, time_ms",
    "grafana_process_classes": "census_id, metric",
    "grafana_marks": "time_ms",
    "grafana_system_memory": "metric, time_ms",
}


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((STOREWRITE_EXE, "storewrite.exe (make check-windows)"),
                        (STOREWRITE, "the Linux storewrite (make check-windows)"), (LINUX, "build/ramwatch")))


def files(db):
    """The database and its WAL as bytes, and the files beside them (a
    reader writes only its marks in the WAL's index, -shm)."""
    out = {"files": sorted(os.listdir(os.path.dirname(db)))}
    for suffix in ("", "-wal"):
        if os.path.exists(db + suffix):
            with open(db + suffix, "rb") as f:
                out[suffix] = f.read()
    return out


@pytest.fixture(scope="module")
def windows_db(wine_env, tmp_path_factory):
    """A database written under Wine through the store."""
    db = str(tmp_path_factory.mktemp("windows") / "ramwatch.db")
    r = subprocess.run([WINE, STOREWRITE_EXE, winpath(db), winpath(CAPTURE)], env=wine_env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return db, json.loads(r.stdout)


@pytest.fixture(scope="module")
def linux_db(tmp_path_factory):
    """The same rows, written by the Linux build."""
    db = str(tmp_path_factory.mktemp("linux") / "ramwatch.db")
    r = subprocess.run([STOREWRITE, db, CAPTURE], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return db, json.loads(r.stdout)


def linux_sql(db, query):
    r = subprocess.run([LINUX, "sql", "--db", db, "--format", "json", query], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def windows_sql(env, db, query):
    r = subprocess.run([WINE, EXE, "sql", "--db", winpath(db), "--format", "json", query], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def schema_version():
    """STORE_SCHEMA_VERSION, as schema/store.h declares it."""
    with open(os.path.join(ROOT, "schema", "store.h")) as f:
        m = re.search(r"^#define STORE_SCHEMA_VERSION (\d+)$", f.read(), re.M)
    assert m, "schema/store.h declares no STORE_SCHEMA_VERSION"
    return int(m.group(1))


def test_windows_database_passes_linux_integrity_check(windows_db):
    db, _ = windows_db
    # Linux's SQLite (the system's libsqlite3), on the file as Wine left it:
    # in WAL mode, its WAL and index kept beside it
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # the schema version this tree's store writes, on both platforms
        assert con.execute("PRAGMA user_version").fetchone()[0] == schema_version()
        assert con.execute("PRAGMA application_id").fetchone()[0] == 0x52414D57
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        con.close()


def test_linux_reads_what_windows_wrote(windows_db):
    db, ids = windows_db
    labels = linux_sql(db, "SELECT process_id, pid, label, platform, owner, uid FROM process_labels "
                           "ORDER BY process_id")
    # the capture's process: its account as owner, no uid
    assert labels == [
        {"process_id": ids["windows_process"], "pid": 32, "label": "holder.exe [32]", "platform": "windows",
         "owner": "VM\\root", "uid": None},
        {"process_id": ids["linux_process"], "pid": 4242, "label": "worker [4242]", "platform": "linux",
         "owner": "1000", "uid": 1000},
    ]
    # creation time (FILETIME 134406510324299990) in unix ms, the instance's key
    p = linux_sql(db, f"SELECT start_time, started_at FROM processes WHERE id = {ids['windows_process']}")
    assert p == [{"start_time": 1796177432429, "started_at": 1796177432429}]
    rows = linux_sql(db, f"SELECT time, private, private_max, resident FROM memory_timeline "
                         f"WHERE process_id = {ids['windows_process']} ORDER BY time")
    assert [r["time"] for r in rows] == [T0 + 10.0 * i for i in range(6)]
    assert [r["private"] for r in rows] == [(100 + 10 * i) * MiB for i in range(6)]
    census = linux_sql(db, f"SELECT trigger, status, label, private FROM census_log WHERE census_id = {ids['census']}")
    assert census[0]["trigger"] == "growth" and census[0]["status"] == "ok"
    assert census[0]["label"] == "holder.exe [32]"
    # the census names the holder's heaps and its private memory, and its
    # classes add up to its total
    classes = {r["class"]: r["private"] for r in
               linux_sql(db, f"SELECT class, private FROM class_timeline WHERE census_id = {ids['census']}")}
    assert classes["malloc"] > 0 and classes["other"] > 0, classes
    assert sum(classes.values()) == census[0]["private"]
    marks = linux_sql(db, "SELECT time, title, text FROM annotations")
    assert marks == [{"time": T0 + 20.0, "title": "load", "text": "holder.exe [32]"}]


def test_same_answers_on_both_platforms(wine_env, windows_db, linux_db):
    """Each view, asked of either file by either build, gives the same rows."""
    wdb, wids = windows_db
    ldb, lids = linux_db
    assert wids == lids
    before = {db: files(db) for db in (wdb, ldb)}
    for view, order in VIEWS.items():
        query = f"SELECT * FROM {view} ORDER BY {order}"
        answers = {
            "linux on windows' file": linux_sql(wdb, query),
            "linux on linux's file": linux_sql(ldb, query),
            "windows on windows' file": windows_sql(wine_env, wdb, query),
            "windows on linux's file": windows_sql(wine_env, ldb, query),
        }
        first = answers["linux on windows' file"]
        assert first, f"{view}: no rows"
        for how, rows in answers.items():
            assert rows == first, f"{view}: {how} differs"
    # reading changed neither file
    assert {db: files(db) for db in (wdb, ldb)} == before


def test_windows_sql_only_reads(wine_env, linux_db):
    db, _ = linux_db
    before = files(db)
    r = subprocess.run([WINE, EXE, "sql", "--db", winpath(db), "DELETE FROM processes"], env=wine_env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "refused: DELETE is not allowed" in r.stderr, r.stderr
    assert files(db) == before
    assert linux_sql(db, "SELECT count(*) AS n FROM processes") == [{"n": 2}]


def test_windows_store_errors_are_errno(wine_env, tmp_path):
    """SQLite's system error on Windows is GetLastError()'s code: a database
    in a directory that does not exist is said to be missing (code 3 read
    as an errno would be "No such process")."""
    db = tmp_path / "none" / "ramwatch.db"
    r = subprocess.run([WINE, STOREWRITE_EXE, winpath(db), winpath(CAPTURE)], env=wine_env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert "cannot open" in r.stderr and "No such file or directory" in r.stderr, r.stderr
    assert "No such process" not in r.stderr, r.stderr


def test_windows_sql_default_database(wine_env, tmp_path):
    """Without --db nor RAMWATCH_DB, the database under %ProgramData%."""
    r = subprocess.run([WINE, EXE, "sql", "SELECT 1"], env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "C:\\ProgramData\\ramwatch\\ramwatch.db" in r.stderr, r.stderr
