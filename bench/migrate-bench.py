#!/usr/bin/python3
"""How long migration 016 (the censuses table made again for the trigger
'limit') takes on a large database: BENCHMARKS.md, "Store migration".

A database of schema 15 is built from schema/migrations/001..015 and filled
with --censuses censuses of --processes processes, each with --classes class
rows and --regions region rows (what the census tables hold beside them),
then migrated as the store migrates (schema/store.c, migrate() and
run_migration()): foreign keys off outside the transaction, BEGIN
IMMEDIATE, the rows that refer to a missing row counted over the tables
that refer to censuses, the migration's SQL, the same count again,
user_version, COMMIT.  The same SQLite library as the daemon's (the
system's libsqlite3) does the work, so the figure is the daemon's.

    bench/migrate-bench.py [--censuses 100000] [--classes 12] [--regions 20]
                           [--db PATH] [--keep]
"""
import argparse
import glob
import os
import random
import sqlite3
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS = sorted(glob.glob(os.path.join(HERE, "..", "schema", "migrations", "*.sql")))
TARGET = 16

# the store's count (schema/store.c, count_dangling)
DANGLING = ("SELECT count(*) FROM (SELECT DISTINCT m.name FROM sqlite_master m,"
            " pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND (f.\"table\" = ?1 OR m.name = ?1))"
            " t, pragma_foreign_key_check(t.name)")

CLASSES = ["malloc", "stack", "anon", "file_code", "file_data", "runtime_heap", "shmem", "gpu_driver",
           "java_heap", "java_metaspace", "python", "other"]


def build(path, a):
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA auto_vacuum = INCREMENTAL")
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA application_id = 1380011351")
    for m in MIGRATIONS[:TARGET - 1]:
        con.executescript(open(m).read())
    con.execute(f"PRAGMA user_version = {TARGET - 1}")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("BEGIN")
    con.executemany("INSERT INTO processes (id, boot_id, pid, start_time, comm, first_seen, last_seen)"
                    " VALUES (?, 'b', ?, 1, 'p', 0, 0)", ((p, 1000 + p) for p in range(1, a.processes + 1)))
    con.executemany("INSERT INTO paths (id, path) VALUES (?, ?)", ((i, f"/usr/lib/lib{i}.so") for i in range(1, 201)))
    rnd = random.Random(1)
    per = a.censuses // a.processes
    triggers = ["first"] + ["interval"] * 8 + ["growth"]
    con.executemany(
        "INSERT INTO censuses (id, process_id, time, trigger, status, private, resident, pss, swap, size, regions,"
        " counter_private, counter_resident, wall_us, cpu_us, bytes_read, gpu_state, in_use, free)"
        " VALUES (?, ?, ?, ?, 'ok', ?, ?, ?, 0, ?, 300, ?, ?, 4000, 3000, 90000, 'no_library', ?, ?)",
        ((c, 1 + (c - 1) // per, 1700000000000 + c * 3000, triggers[c % len(triggers)],
          rnd.randrange(1 << 20, 1 << 32), rnd.randrange(1 << 20, 1 << 32), rnd.randrange(1 << 20, 1 << 32),
          rnd.randrange(1 << 30, 1 << 36), rnd.randrange(1 << 20, 1 << 32), rnd.randrange(1 << 20, 1 << 32),
          rnd.randrange(1 << 20, 1 << 30), rnd.randrange(1 << 10, 1 << 20))
         for c in range(1, a.censuses + 1)))
    con.executemany(
        "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count)"
        " VALUES (?, ?, ?, ?, ?, 0, ?, 3)",
        ((c, CLASSES[k], c * 7 + k, c * 7 + k, c * 7 + k, c * 9 + k)
         for c in range(1, a.censuses + 1) for k in range(a.classes)))
    con.executemany(
        "INSERT INTO census_region_rows (census_id, rank, start, \"end\", perms, class, rule, private, resident,"
        " path_id) VALUES (?, ?, ?, ?, 'rw-p', 'malloc', 'brk_heap', ?, ?, ?)",
        ((c, r, r << 24, (r << 24) + 4096 * (r + 1), 4096 * r, 4096 * r, 1 + (c + r) % 200)
         for c in range(1, a.censuses + 1) for r in range(a.regions)))
    con.execute("COMMIT")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def migrate(path):
    """Migration 016 as the store runs it; returns seconds per step."""
    sql = open(MIGRATIONS[TARGET - 1]).read()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA synchronous = NORMAL")
    con.execute("PRAGMA foreign_keys = ON")  # as the store's connection has them
    steps = {}
    t0 = time.monotonic()
    con.execute("PRAGMA foreign_keys = OFF")
    con.execute("BEGIN IMMEDIATE")
    t = time.monotonic()
    before = con.execute(DANGLING, ("censuses",)).fetchone()[0]
    steps["check before"] = time.monotonic() - t
    t = time.monotonic()
    for statement in split(sql):
        con.execute(statement)
    steps["migration SQL"] = time.monotonic() - t
    t = time.monotonic()
    after = con.execute(DANGLING, ("censuses",)).fetchone()[0]
    steps["check after"] = time.monotonic() - t
    assert after <= before, (before, after)
    con.execute(f"PRAGMA user_version = {TARGET}")
    t = time.monotonic()
    con.execute("COMMIT")
    steps["commit"] = time.monotonic() - t
    con.execute("PRAGMA foreign_keys = ON")
    steps["all"] = time.monotonic() - t0
    n = con.execute("SELECT count(*) FROM censuses").fetchone()[0]
    con.close()
    return steps, n


def split(sql):
    """The statements of a script, for one connection without executescript's
    implicit COMMIT (sqlite3.complete_statement finds their ends)."""
    out, cur = [], ""
    for line in sql.splitlines(keepends=True):
        cur += line
        if sqlite3.complete_statement(cur):
            if cur.strip():
                out.append(cur)
            cur = ""
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--censuses", type=int, default=100000)
    p.add_argument("--processes", type=int, default=100)
    p.add_argument("--classes", type=int, default=12)
    p.add_argument("--regions", type=int, default=20)
    p.add_argument("--db")
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    tmp = None
    path = a.db
    if not path:
        tmp = tempfile.mkdtemp(prefix="migrate-bench-")
        path = os.path.join(tmp, "ramwatch.db")
    t = time.monotonic()
    build(path, a)
    print(f"built schema {TARGET - 1}: {a.censuses} censuses, {a.censuses * a.classes} class rows, "
          f"{a.censuses * a.regions} region rows, {os.path.getsize(path) / (1 << 20):.1f} MiB "
          f"in {time.monotonic() - t:.1f} s (SQLite {sqlite3.sqlite_version})")
    steps, n = migrate(path)
    for k, v in steps.items():
        print(f"  {k}: {v * 1000:.0f} ms")
    print(f"migrated to schema {TARGET}: {n} censuses")
    if not a.keep:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
        if tmp:
            os.rmdir(tmp)


if __name__ == "__main__":
    main()
