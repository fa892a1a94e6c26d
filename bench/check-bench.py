#!/usr/bin/python3
"""How long PRAGMA quick_check takes on a ramwatch database of a given size
(MaxDatabaseSize=1G by default): the figure behind the start-up check's
time bound (BENCHMARKS.md, ramwatchd(8) "Corruption").

The database has ramwatch's real schema (schema/migrations/*.sql, in order)
and is filled with fast-tier rows, the bulk of any real store, until the
file reaches the size asked for.  The page cache is dropped before the
timed check when run as root, so the figure is that of a cold start.

    bench/check-bench.py [--size 1G] [--db PATH] [--keep]
"""
import argparse
import glob
import os
import random
import sqlite3
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS = sorted(glob.glob(os.path.join(HERE, "..", "schema", "migrations", "*.sql")))


def size_arg(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def build(path, size):
    con = sqlite3.connect(path)
    con.execute("PRAGMA auto_vacuum = INCREMENTAL")
    con.execute("PRAGMA journal_mode = WAL")
    for i, m in enumerate(MIGRATIONS, 1):
        con.executescript(open(m).read())
        con.execute(f"PRAGMA user_version = {i}")
    con.commit()
    con.execute("PRAGMA synchronous = OFF")
    procs = 500
    for p in range(1, procs + 1):
        con.execute("INSERT INTO processes (id, boot_id, pid, start_time, first_seen, last_seen, comm) "
                    "VALUES (?, 'bench', ?, ?, 0, 0, 'bench')", (p, p, p))
    con.commit()
    t, rnd = 0, random.Random(1)
    while os.path.getsize(path) + os.path.getsize(path + "-wal") < size:
        t += 1000
        rows = [(p, 0, t, *(rnd.randrange(1 << 34) for _ in range(7)), 10, t) for p in range(1, procs + 1)]
        con.executemany("INSERT INTO samples (process_id, resolution, time, private_min, private_max, private_last,"
                        " resident_min, resident_max, resident_last, swap_last, samples, until)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        if t % 100000 == 0:
            con.commit()
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=size_arg, default=1 << 30)
    ap.add_argument("--db", default="/var/tmp/ramwatch-check-bench.db")
    ap.add_argument("--keep", action="store_true", help="keep the database for another run")
    a = ap.parse_args()
    if not os.path.exists(a.db) or os.path.getsize(a.db) < a.size:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(a.db + suffix):
                os.unlink(a.db + suffix)
        t0 = time.monotonic()
        build(a.db, a.size)
        print(f"built {os.path.getsize(a.db) / (1 << 20):.0f} MiB in {time.monotonic() - t0:.0f} s")
    if os.geteuid() == 0:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    for cache in ("cold", "warm"):
        con = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
        t0 = time.monotonic()
        result = con.execute("PRAGMA quick_check").fetchall()
        took = time.monotonic() - t0
        con.close()
        print(f"quick_check ({cache} cache) of {os.path.getsize(a.db) / (1 << 20):.0f} MiB: {took:.2f} s, "
              f"{result[0][0]}")
    if not a.keep:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(a.db + suffix):
                os.unlink(a.db + suffix)


if __name__ == "__main__":
    main()
