#!/usr/bin/python3
"""ramwatchd's own cost while it watches many processes, side by side with
the floor of the same work and with a tool people leave running.

Starts N idle processes (bench/idle-target: 8 MiB of heap, 3 threads each),
then, in one run and over the same wall-clock window:

    ramwatchd            watching all N (Watch=name:idle-target, MinPrivate=0)
    status-reader        reads /proc/PID/status of the N every SampleInterval
                         and nothing else: what any sampler must pay
    top -b -d 1          what people leave running to watch a machine

and reports each one's CPU (utime + stime from /proc/PID/stat: the kernel's
own accounting) as a share of one CPU, their ratios, ramwatchd's resident
memory (VmRSS, and VmHWM: its peak), and the database's growth per process
and hour.  Scenarios: the default settings (a window that holds a full
CensusInterval, so every process has its interval census in it), and
SampleInterval=100ms.

    make bench-daemon       # or: RAMWATCH_BUILD=build bench/daemon-bench.py [--processes N] [--seconds S]
"""
import argparse
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14, 15)


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def db_bytes(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        free = con.execute("PRAGMA freelist_count").fetchone()[0]
        size = con.execute("PRAGMA page_size").fetchone()[0]
        return (pages - free) * size
    finally:
        con.close()


def scenario(name, targets, sample_ms, seconds, warmup, extra_config, with_top):
    work = tempfile.mkdtemp(prefix="ramwatch-bench-")
    config = os.path.join(work, "ramwatchd.conf")
    with open(config, "w") as f:
        f.write("[Watch]\nWatch=name:idle-target\nMinPrivate=0\n" + extra_config)
    state = os.path.join(work, "state")
    procs = {
        "ramwatchd": subprocess.Popen([os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", config,
                                       "--state-dir", state, "--log-level", "warning"],
                                      stderr=subprocess.DEVNULL),
        "status-reader": subprocess.Popen([os.path.join(BUILD, "bench", "status-reader"), str(sample_ms),
                                           *[str(t.pid) for t in targets]]),
    }
    if with_top:
        procs["top -b -d 1"] = subprocess.Popen(["top", "-b", "-d", "1"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(warmup)
        db = os.path.join(state, "ramwatch.db")
        start = {k: cpu_seconds(p.pid) for k, p in procs.items()}
        size0, t0 = db_bytes(db), time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - t0
        end = {k: cpu_seconds(p.pid) for k, p in procs.items()}
        size1 = db_bytes(db)
        rss = status_kib(procs["ramwatchd"].pid, "VmRSS") / 1024
        hwm = status_kib(procs["ramwatchd"].pid, "VmHWM") / 1024
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        watched = con.execute("SELECT count(*) FROM processes WHERE exited_at IS NULL").fetchone()[0]
        censuses = con.execute("SELECT count(*), sum(cpu_us) FROM censuses").fetchone()
        con.close()
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.wait()
        shutil.rmtree(work)
    share = {k: (end[k] - start[k]) / wall for k in procs}
    growth_hour = (size1 - size0) / len(targets) / (wall / 3600)
    return {
        "name": name, "wall": wall, "share": share, "rss": rss, "hwm": hwm, "watched": watched,
        "censuses": censuses, "growth_hour": growth_hour,
    }


def report(results, n):
    print(f"# ramwatchd watching {n} processes ({platform.machine()}, {os.cpu_count()} CPUs, "
          f"Linux {platform.release()})\n")
    print("| scenario | window | ramwatchd CPU | status-reader CPU | ramwatchd / reader | top CPU | "
          "ramwatchd / top | RSS (peak) | DB growth per process-hour (per day) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s = r["share"]
        top = s.get("top -b -d 1")
        print(f"| {r['name']} | {r['wall']:.0f} s | {s['ramwatchd'] * 100:.3f} % | "
              f"{s['status-reader'] * 100:.3f} % | {s['ramwatchd'] / max(s['status-reader'], 1e-9):.2f} | "
              f"{'%.3f %%' % (top * 100) if top is not None else '-'} | "
              f"{'%.2f' % (s['ramwatchd'] / top) if top else '-'} | "
              f"{r['rss']:.1f} MiB ({r['hwm']:.1f} MiB) | "
              f"{r['growth_hour'] / 1024:.1f} KiB ({r['growth_hour'] * 24 / 1048576:.2f} MiB) |")
    for r in results:
        print(f"\n{r['name']}: {r['watched']} processes watched, {r['censuses'][0]} censuses "
              f"({(r['censuses'][1] or 0) / 1e6:.2f} s of CPU in all)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--processes", type=int, default=200)
    ap.add_argument("--seconds", type=int, default=330, help="window at the defaults (>= CensusInterval)")
    ap.add_argument("--fast-seconds", type=int, default=60, help="window at SampleInterval=100ms")
    args = ap.parse_args()

    targets = []
    try:
        for _ in range(args.processes):
            t = subprocess.Popen([os.path.join(BUILD, "bench", "idle-target"), "8"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
            targets.append(t)
        for t in targets:
            assert t.stdout.readline().strip() == "ready"
        results = [
            scenario("defaults", targets, 1000, args.seconds, 20, "", True),
            scenario("SampleInterval=100ms", targets, 100, args.fast_seconds, 20,
                     "[Sampling]\nSampleInterval=100ms\n", False),
        ]
    finally:
        for t in targets:
            t.stdin.close()
        for t in targets:
            t.wait()
    report(results, args.processes)


if __name__ == "__main__":
    sys.exit(main())
