#!/usr/bin/python3
"""What a census of an unchanged process costs the daemon, beside a full
census, on bench/many-maps (20,000 mappings, all anonymous), side by side
in one run.

Daemons of the same build follow the same many-maps process at once, each
with its own state:

    none-watch   ChangeWatch=yes, no census after the first (CensusInterval=7d)
    none-text    ChangeWatch=no, the same
    unread       ChangeWatch=yes, a census every 10 s, SteadyCheckInterval=7d:
                 the change watch's word alone, nothing read
    kept         ChangeWatch=yes, a census every 10 s, SteadyCheckInterval=0:
                 the check reads smaps_rollup and the file mappings' names
                 (PROCMAP_QUERY), as at the end of every SteadyCheckInterval
    files        ChangeWatch=no, a census every 10 s, SteadyCheckInterval=7d:
                 the check without the watch between two reads of maps:
                 statm, the file mappings at their starts (PROCMAP_QUERY)
                 and smaps_rollup
    text         ChangeWatch=no, a census every 10 s, SteadyCheckInterval=0:
                 the check reads smaps_rollup and the text of maps, as at
                 the end of every SteadyCheckInterval without the watch

A variant's cost per census is its CPU over the window (the sum over its
threads of /proc/PID/task/TID/schedstat's time on a CPU) minus that of the
daemon with the same ChangeWatch and no census, over the interval
censuses it stored in the window; beside it, what the census thread
itself recorded (the censuses' cpu_us), without the store's work.  The full census it stands against is
`ramwatch scan PID --json`, run during the window (its CPU from wait4),
the median of its runs.  After the windows, bench/steady-check times the
checks in one process on the same target, the check through
PROCMAP_QUERY for every mapping beside the text (ratios to scan_process
there).

    make bench-census        # or: RAMWATCH_BUILD=build bench/census-bench.py [--window S] [--runs N]
"""
import argparse
import glob
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
INTERVAL = 10

VARIANTS = {
    "none-watch": "CensusInterval=7d\nChangeWatch=yes",
    "none-text": "CensusInterval=7d\nChangeWatch=no",
    "unread": f"CensusInterval={INTERVAL}s\nChangeWatch=yes\nSteadyCheckInterval=7d",
    "kept": f"CensusInterval={INTERVAL}s\nChangeWatch=yes\nSteadyCheckInterval=0",
    "files": f"CensusInterval={INTERVAL}s\nChangeWatch=no\nSteadyCheckInterval=7d",
    "text": f"CensusInterval={INTERVAL}s\nChangeWatch=no\nSteadyCheckInterval=0",
}
BASE = {"unread": "none-watch", "kept": "none-watch", "files": "none-text", "text": "none-text"}


def cpu_ns(pid):
    """The process's time on a CPU so far, every thread's (schedstat)."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just exited
    return total


def query(db, sql, *params):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def wait_rows(db, sql, n, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if query(db, sql)[0][0] >= n:
                return
        except sqlite3.Error:
            pass  # not made yet, or busy
        time.sleep(0.5)
    raise SystemExit(f"timed out waiting for {what}")


def scan_cpu_ms(pid):
    """One `ramwatch scan PID --json`: its CPU (user + system), ms."""
    p = subprocess.Popen([os.path.join(BUILD, "ramwatch"), "scan", str(pid), "--json"],
                         stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"ramwatch scan exited with {p.returncode}")
    return (ru.ru_utime + ru.ru_stime) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--window", type=int, default=120, help="seconds of each window (default 120)")
    ap.add_argument("--runs", type=int, default=3, help="windows, one after the other (default 3)")
    ap.add_argument("--mappings", type=int, default=20000)
    args = ap.parse_args()

    target = subprocess.Popen([os.path.join(BUILD, "helpers", "many-maps"), str(args.mappings)],
                              stdout=subprocess.PIPE, text=True)
    assert target.stdout.readline().startswith("ready")
    daemons, dbs = {}, {}
    work = tempfile.mkdtemp(prefix="ramwatch-census-bench-")
    try:
        for name, extra in VARIANTS.items():
            d = os.path.join(work, name)
            os.makedirs(d)
            config = os.path.join(d, "ramwatchd.conf")
            with open(config, "w") as f:
                f.write(f"[Watch]\nWatch=pid:{target.pid}\nMinPrivate=0\n"
                        f"[Sampling]\nCensusOnGrowth=no\n{extra}\n")
            dbs[name] = os.path.join(d, "state", "ramwatch.db")
            daemons[name] = subprocess.Popen([os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", config,
                                              "--state-dir", os.path.join(d, "state"),
                                              "--socket", os.path.join(d, "sock"), "--log-level", "warning"])
        # the first census of each, then one interval census of each that
        # takes them: the window holds the steady state
        for name, db in dbs.items():
            wait_rows(db, "SELECT count(*) FROM censuses WHERE trigger = 'first'", 1, 300, f"{name}'s first census")
        for name in BASE:
            wait_rows(dbs[name], "SELECT count(*) FROM censuses WHERE trigger = 'interval'", 2,
                      4 * INTERVAL + 60, f"{name}'s interval censuses")
        print(f"many-maps {args.mappings}: {args.runs} windows of {args.window} s, a census every {INTERVAL} s",
              flush=True)
        results = []
        for run in range(args.runs):
            t0_ms = time.time() * 1000
            c0 = {name: cpu_ns(p.pid) for name, p in daemons.items()}
            scans = []
            start = time.monotonic()
            # a scan between two censuses of the daemons, every interval
            while time.monotonic() - start < args.window - INTERVAL / 2:
                time.sleep(INTERVAL / 2)
                scans.append(scan_cpu_ms(target.pid))
                time.sleep(max(0.0, INTERVAL / 2 - 0.1))
            time.sleep(max(0.0, args.window - (time.monotonic() - start)))
            c1 = {name: cpu_ns(p.pid) for name, p in daemons.items()}
            t1_ms = time.time() * 1000
            scan = statistics.median(scans)
            row = {"scan": scan}
            for name, base in BASE.items():
                n, unread, repeats, own = query(
                    dbs[name], "SELECT count(*), sum(bytes_read = 0), sum(repeats IS NOT NULL), avg(cpu_us)"
                    " FROM censuses WHERE trigger = 'interval' AND time > ? AND time <= ?", t0_ms, t1_ms)[0]
                spent = ((c1[name] - c0[name]) - (c1[base] - c0[base])) / 1e6
                per = spent / n if n else float("nan")
                row[name] = (per, per / scan, n, unread or 0, repeats or 0, (own or 0) / 1000)
            results.append(row)
            print(f"window {run + 1}: ramwatch scan --json {scan:.2f} ms CPU (median of {len(scans)})", flush=True)
            for name in BASE:
                per, ratio, n, unread, repeats, own = row[name]
                print(f"  {name:7s} {per:7.3f} ms a census  {ratio:6.3f}x  ({n} censuses, {repeats} repeats,"
                      f" {unread} read nothing; the census's own CPU as stored {own:.3f} ms)", flush=True)
        print(f"medians over {len(results)} windows (CPU a census, and its ratio to ramwatch scan --json):")
        print(f"  ramwatch scan --json {statistics.median(r['scan'] for r in results):.2f} ms")
        for name in BASE:
            per = statistics.median(r[name][0] for r in results)
            ratio = statistics.median(r[name][1] for r in results)
            own = statistics.median(r[name][5] for r in results)
            print(f"  {name:7s} {per:7.3f} ms  {ratio:6.3f}x  (its own, as stored: {own:.3f} ms)")
        checks = subprocess.run([os.path.join(BUILD, "bench", "steady-check"), str(target.pid), "21"],
                                capture_output=True, text=True, check=True).stdout.split()
        f = dict(zip(checks[0::2], checks[1::2]))
        print("in one process (bench/steady-check, CPU, medians of 21):")
        for k in ("census", "maps", "ioctl", "kept", "files"):
            print(f"  {k:7s} {int(f[k + '_cpu_us']) / 1000:7.2f} ms" +
                  (f"  {float(f[k + '_ratio']):.3f}x the census" if k != "census" else ""))
    finally:
        for p in daemons.values():
            p.terminate()
        for p in daemons.values():
            p.wait()
        target.kill()
        target.wait()


if __name__ == "__main__":
    main()
