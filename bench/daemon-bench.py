#!/usr/bin/python3
"""ramwatchd's own cost while it watches many processes, side by side with
the floor of the same work and with a tool people leave running.

Starts N idle processes (bench/idle-target: 4 MiB of heap, 3 threads each),
then, in one run and over the same wall-clock window:

    ramwatchd            watching all N (Watch=name:idle-target, MinPrivate=0)
    statm-reader         reads what the fast tier must of the N: statm kept
                         open every SampleInterval, status once per
                         StoreInterval, and nothing else (the floor)
    top -b -d 1          what people leave running to watch a machine

and reports each one's CPU (utime + stime from /proc/PID/stat: the kernel's
own accounting) as a share of one CPU, their ratios, ramwatchd's resident
memory (VmRSS, and VmHWM: its peak), and the database's growth per process
and hour.  Scenarios: the default settings (a window that holds a full
CensusInterval, so every process has its interval census in it), and
SampleInterval=100ms.  With --present P, the cost of discovery: the same
daemon over --present-seconds with only the N present, then with P - N
more started under another name (idle-other, one thread each, not
selected), and the difference in CPU share.

    make bench-daemon       # or: RAMWATCH_BUILD=build bench/daemon-bench.py [--processes N] [--seconds S]
                            #     [--present P] (quick: --processes 100 --seconds 40 --present 1000)
"""
import argparse
import os
import platform
import resource
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


def scenario(name, targets, sample_ms, seconds, warmup, extra_config, with_top, with_floor=True):
    work = tempfile.mkdtemp(prefix="ramwatch-bench-")
    config = os.path.join(work, "ramwatchd.conf")
    with open(config, "w") as f:
        f.write("[Watch]\nWatch=name:idle-target\nMinPrivate=0\n" + extra_config)
    state = os.path.join(work, "state")
    procs = {
        "ramwatchd": subprocess.Popen([os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", config,
                                       "--state-dir", state, "--log-level", "warning"],
                                      stderr=subprocess.DEVNULL),
    }
    if with_floor:
        # the status read once per StoreInterval (the default's 60 s)
        procs["statm-reader"] = subprocess.Popen([os.path.join(BUILD, "bench", "statm-reader"), str(sample_ms),
                                                  "60000", *[str(t.pid) for t in targets]])
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
    print("| scenario | window | ramwatchd CPU | statm-reader CPU | ramwatchd / reader | top CPU | "
          "ramwatchd / top | RSS (peak) | DB growth per process-hour (per day) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s = r["share"]
        top = s.get("top -b -d 1")
        floor = s.get("statm-reader")
        print(f"| {r['name']} | {r['wall']:.0f} s | {s['ramwatchd'] * 100:.3f} % | "
              f"{'%.3f %%' % (floor * 100) if floor is not None else '-'} | "
              f"{'%.2f' % (s['ramwatchd'] / max(floor, 1e-9)) if floor else '-'} | "
              f"{'%.3f %%' % (top * 100) if top is not None else '-'} | "
              f"{'%.2f' % (s['ramwatchd'] / top) if top else '-'} | "
              f"{r['rss']:.1f} MiB ({r['hwm']:.1f} MiB) | "
              f"{r['growth_hour'] / 1024:.1f} KiB ({r['growth_hour'] * 24 / 1048576:.2f} MiB) |")
    for r in results:
        print(f"\n{r['name']}: {r['watched']} processes watched, {r['censuses'][0]} censuses "
              f"({(r['censuses'][1] or 0) / 1e6:.2f} s of CPU in all)")
    present = [r for r in results if r.get("present")]
    if len(present) == 2:
        a, b = present
        print(f"\ndiscovery: {b['present']} present instead of {a['present']}, {n} selected: "
              f"{(b['share']['ramwatchd'] - a['share']['ramwatchd']) * 100:+.3f} % of one CPU")


def start_targets(n, name, mib, threads, stdin):
    """n idle processes run as name (a copy of idle-target: name: matches
    the executable's name as well as the comm, so a symlink would not do),
    all reading stdin: they exit when its write end closes.  Returns them
    once all said ready."""
    binary = os.path.join(BUILD, "bench", "idle-target")
    if name != "idle-target":
        copy = os.path.join(tempfile.mkdtemp(prefix="ramwatch-bench-"), name)
        shutil.copy(binary, copy)
        binary = copy
    r, w = os.pipe()
    procs = [subprocess.Popen([binary, str(mib), str(threads)], stdin=stdin, stdout=w) for _ in range(n)]
    os.close(w)
    with os.fdopen(r) as ready:
        for _ in range(n):
            assert ready.readline().strip() == "ready"
    return procs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--processes", type=int, default=1000)
    ap.add_argument("--mib", type=int, default=4, help="touched heap of each process")
    ap.add_argument("--seconds", type=int, default=330, help="window at the defaults (>= CensusInterval)")
    ap.add_argument("--fast-seconds", type=int, default=60, help="window at SampleInterval=100ms")
    ap.add_argument("--present", type=int, default=10000,
                    help="processes present for the discovery scenarios (0: none)")
    ap.add_argument("--present-seconds", type=int, default=90, help="window of each discovery scenario")
    args = ap.parse_args()

    # a descriptor per pipe here, the readers' and the daemon's per process
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    r, w = os.pipe()  # the targets' stdin: closing w ends them all
    targets, others = [], []
    try:
        targets = start_targets(args.processes, "idle-target", args.mib, 2, r)
        results = [
            scenario("defaults", targets, 1000, args.seconds, 20, "", True),
            scenario("SampleInterval=100ms", targets, 100, args.fast_seconds, 20,
                     "[Sampling]\nSampleInterval=100ms\n", False),
        ]
        if args.present > args.processes:
            res = scenario(f"defaults, {args.processes} present", targets, 1000, args.present_seconds, 20, "",
                           False, with_floor=False)
            res["present"] = args.processes
            results.append(res)
            others = start_targets(args.present - args.processes, "idle-other", 1, 0, r)
            res = scenario(f"defaults, {args.present} present", targets, 1000, args.present_seconds, 20, "",
                           False, with_floor=False)
            res["present"] = args.present
            results.append(res)
    finally:
        os.close(w)
        os.close(r)
        for t in targets + others:
            t.wait()
    report(results, args.processes)

if __name__ == "__main__":
    sys.exit(main())
