#!/usr/bin/env python3
"""doc/schema.sql: the schema of a new ramwatch database, as a real
ramwatchd creates it.

  schema-doc.py --daemon build/ramwatchd --out doc/schema.sql
      starts the daemon on an empty state directory (in the foreground,
      watching nothing, its readiness told through a notify socket of its
      own), dumps the database it created, stops it, and writes the file
      (make schema-doc)
  schema-doc.py --db PATH
      dumps an existing database to standard output

The dump is what SQLite keeps in sqlite_schema (the text of each CREATE
statement as the migrations wrote it, with the columns ALTER TABLE added),
normalised: trailing spaces cut, each statement ended by ";", tables by
name each followed by its indexes and triggers, then the views by name
each followed by its own triggers; SQLite's internal tables left out.
Above them the database's settings that the store and the migrations
set: auto_vacuum, journal_mode, application_id, user_version (in an
order that sqlite3 can replay).

tests/integration/test_schema_doc.py compares a new database of the daemon
with the file through schema_dump() here."""
import argparse
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

HEADER = """\
-- The schema of a new ramwatch database: every table, index, trigger and
-- view ramwatchd creates, after the migrations of schema/migrations/ ran
-- in order.  ramwatch-schema(7) says what each column and view holds;
-- this is the same schema as SQL, as SQLite keeps it (tables by name, each
-- with its indexes and triggers, then views by name).  Read by sqlite3 it
-- makes an empty database of the same schema.
--
-- Generated from a database a real ramwatchd created; do not edit.
-- After adding or changing a migration, regenerate it with one command:
--     make schema-doc
-- (tests/integration/test_schema_doc.py fails until it is.)
"""

AUTO_VACUUM = {0: "NONE", 1: "FULL", 2: "INCREMENTAL"}


def statement(sql):
    lines = [line.rstrip() for line in sql.replace("\r\n", "\n").strip().split("\n")]
    text = "\n".join(lines)
    return text if text.endswith(";") else text + ";"


def schema_dump(db_path):
    """The normalised schema of the database at db_path, as text."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        application = db.execute("PRAGMA application_id").fetchone()[0]
        auto_vacuum = db.execute("PRAGMA auto_vacuum").fetchone()[0]
        journal = db.execute("PRAGMA journal_mode").fetchone()[0]
        rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema"
                          " WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").fetchall()
    finally:
        db.close()
    by_type = {}
    for kind, name, table, sql in rows:
        by_type.setdefault(kind, []).append((name, table, sql))
    # auto_vacuum first: it must precede anything that writes the file
    out = [HEADER, f"PRAGMA auto_vacuum = {AUTO_VACUUM.get(auto_vacuum, auto_vacuum)};",
           f"PRAGMA journal_mode = {journal.upper()};",
           f"PRAGMA application_id = {application};  -- 0x{application:08x}",
           f"PRAGMA user_version = {version};", ""]

    def with_dependents(kind):
        for name, _, sql in sorted(by_type.get(kind, [])):
            out.append(f"-- {kind} {name}")
            out.append(statement(sql))
            for dependent in ("index", "trigger"):
                for dname, table, dsql in sorted(by_type.get(dependent, [])):
                    if table == name:
                        out.append(statement(dsql))
            out.append("")

    with_dependents("table")
    with_dependents("view")
    known = {"table", "view", "index", "trigger"}
    if set(by_type) - known:
        raise ValueError(f"sqlite_schema holds entries of another type: {sorted(set(by_type) - known)}")
    return "\n".join(out).rstrip("\n") + "\n"


def daemon_schema(daemon):
    """Starts daemon on an empty state directory, waits until it is ready
    (its store open and migrated), and returns the dump of its database."""
    with tempfile.TemporaryDirectory(prefix="rw-schema-") as tmp:
        config = os.path.join(tmp, "ramwatchd.conf")
        state = os.path.join(tmp, "state")
        with open(config, "w") as f:
            # nothing to follow: pid 1 is never a process worth the MinPrivate
            f.write("[Watch]\nWatch=pid:1\nMinPrivate=1P\n[Sampling]\nChangeWatch=no\n")
        notify_path = os.path.join(tmp, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(0.5)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        env.pop("LISTEN_FDS", None)
        log = open(os.path.join(tmp, "ramwatchd.log"), "w+")
        proc = subprocess.Popen([daemon, "--foreground", "--config", config, "--state-dir", state,
                                 "--socket", os.path.join(tmp, "ctl.sock")],
                                stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 60
            ready = False
            while not ready and time.monotonic() < deadline and proc.poll() is None:
                try:
                    ready = b"READY=1" in notify.recv(4096)
                except socket.timeout:
                    pass
            if not ready:
                log.seek(0)
                raise RuntimeError(f"{daemon} did not become ready: {log.read()[-2000:]}")
            return schema_dump(os.path.join(state, "ramwatch.db"))
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            notify.close()
            log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--daemon", help="ramwatchd to create a new database with")
    src.add_argument("--db", help="an existing database")
    ap.add_argument("--out", help="the file to write (default: standard output)")
    args = ap.parse_args()
    text = daemon_schema(args.daemon) if args.daemon else schema_dump(args.db)
    if not args.out:
        sys.stdout.write(text)
        return 0
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(f"{args.out}: schema version {text.split('user_version = ', 1)[1].split(';', 1)[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
