#!/usr/bin/python3
"""ramwatchd's own cost while it watches many processes, side by side with
the floor of the same work and with a tool people leave running.

Starts N idle processes (bench/idle-target: 4 MiB of heap, 3 threads each),
then, in one run and over the same wall-clock window:

    ramwatchd            watching all N (Watch=name:idle-target, MinPrivate=0)
    statm-reader         reads what the fast tier must of the N: statm kept
                         open every SampleInterval, status once a minute
                         (as the daemon does for a process with nothing in
                         swap), and nothing else (the floor)
    top -b -d 1          what people leave running to watch a machine

and reports each one's CPU (utime + stime from /proc/PID/stat: the kernel's
own accounting) as a share of one CPU, their ratios, ramwatchd's resident
memory (VmRSS, and VmHWM: its peak), and the database's growth per process
and hour.  Scenarios: the default settings (a window that holds a full
CensusInterval, so every process has its interval census in it); the
same once every process has had its first census (the steady state: the
first round, paced by ScanBudget, is over, and the window holds the
interval censuses alone); and SampleInterval=100ms.  With --present P, the cost of discovery: the same
daemon over --present-seconds with only the N present, then with P - N
more started under another name (idle-other, one thread each, not
selected), and the difference in CPU share.

    make bench-daemon       # or: RAMWATCH_BUILD=build bench/daemon-bench.py [--processes N] [--seconds S]
                            #     [--present P] [--watched W [--no-watched-settle]] [--only defaults,steady,fast,present,watched]
                            #     (quick: --processes 100 --seconds 40 --present 1000 --watched 0)

With --watched W, W idle processes are present (those beyond N of 1 MiB,
no threads) and two daemons run side by side: one with MaxProcesses=N,
one with MaxProcesses=W; their difference is the cost of a watched
process.  With --watched-settle the window starts once each has had the
first census of every process it watches, so --watched-seconds 330 holds
a whole CensusInterval of the steady state.  The discovery scenarios run
three daemons side by side: one with the process watch (BPF) in a network
namespace of its own (unshare --net) as the packaged unit runs it, one
with the proc connector (ProcessWatch=no), and one with neither (both),
which lists /proc every DiscoverInterval.
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


def metric(path, name):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name + " "):
                    return float(line.split()[1])
    except OSError:
        pass
    return None


def first_censuses_done(db, n, timeout):
    """Waits until the database holds the first census of n processes (the
    daemon paces censuses to its ScanBudget, so the first round of a
    thousand takes a minute or so).  Returns the seconds it took."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                done = con.execute("SELECT count(*) FROM censuses WHERE trigger = 'first'").fetchone()[0]
            finally:
                con.close()
            if done >= n:
                return time.monotonic() - t0
        except sqlite3.Error:
            pass  # not made yet, or busy
        time.sleep(2)
    sys.exit(f"the first censuses of {n} processes were not all taken in {timeout} s")


def scenario(name, targets, sample_ms, seconds, warmup, extra_config, with_top, with_floor=True, variants=None,
             settle=False):
    """variants: daemon name -> (more configuration, a command it runs
    under); by default one, "ramwatchd", as configured.  All run side by
    side over the same window.  settle: the window starts once the first
    census of every target is stored (the steady state), not after
    warmup seconds."""
    variants = variants or {"ramwatchd": ("", [])}
    procs, works, dbs = {}, [], {}
    for v, (more, wrap) in variants.items():
        work = tempfile.mkdtemp(prefix="ramwatch-bench-")
        works.append(work)
        config = os.path.join(work, "ramwatchd.conf")
        with open(config, "w") as f:
            f.write("[Watch]\nWatch=name:idle-target\nMinPrivate=0\n" + more + extra_config +
                    f"\n[Export]\nExport=textfile:{work}/metrics.prom\n")
        state = os.path.join(work, "state")
        dbs[v] = (os.path.join(state, "ramwatch.db"), os.path.join(work, "metrics.prom"))
        procs[v] = subprocess.Popen([*wrap, os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", config,
                                     "--state-dir", state, "--log-level", "warning"], stderr=subprocess.DEVNULL)
    if with_floor:
        # status once a minute, as the daemon reads it for a process with
        # nothing in swap whose statm stays the same (RW_STATUS_REFRESH_MS)
        procs["statm-reader"] = subprocess.Popen([os.path.join(BUILD, "bench", "statm-reader"), str(sample_ms),
                                                  "60000", *[str(t.pid) for t in targets]])
    if with_top:
        procs["top -b -d 1"] = subprocess.Popen(["top", "-b", "-d", "1"], stdout=subprocess.DEVNULL)
    per = {}
    try:
        time.sleep(warmup)
        if settle:
            for v in variants:
                # settle: True (every target), or how many each variant watches
                want = settle[v] if isinstance(settle, dict) else len(targets)
                first_censuses_done(dbs[v][0], want, 1200)
        start = {k: cpu_seconds(p.pid) for k, p in procs.items()}
        size0 = {v: db_bytes(dbs[v][0]) for v in variants}
        t0 = time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - t0
        end = {k: cpu_seconds(p.pid) for k, p in procs.items()}
        for v in variants:
            db, prom = dbs[v]
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            per[v] = {
                "rss": status_kib(procs[v].pid, "VmRSS") / 1024,
                "hwm": status_kib(procs[v].pid, "VmHWM") / 1024,
                "watched": con.execute("SELECT count(*) FROM processes WHERE exited_at IS NULL").fetchone()[0],
                "censuses": con.execute("SELECT count(*), sum(cpu_us) FROM censuses").fetchone(),
                "growth": db_bytes(db) - size0[v],
                "round_max": metric(prom, "ramwatch_sample_round_seconds_max"),
            }
            con.close()
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.wait()
        for w in works:
            shutil.rmtree(w)
    share = {k: (end[k] - start[k]) / wall for k in procs}
    first = next(iter(variants))
    r = per[first]
    return {
        "name": name, "wall": wall, "share": share, "rss": r["rss"], "hwm": r["hwm"], "watched": r["watched"],
        "censuses": r["censuses"], "growth_hour": r["growth"] / len(targets) / (wall / 3600), "variants": per,
    }


def report(results, n):
    print(f"# ramwatchd watching {n} processes ({platform.machine()}, {os.cpu_count()} CPUs, "
          f"Linux {platform.release()})\n")
    print("| scenario | window | ramwatchd CPU | statm-reader CPU | ramwatchd / reader | top CPU | "
          "ramwatchd / top | RSS (peak) | DB growth per process-hour (per day) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s = dict(r["share"])
        s["ramwatchd"] = s[next(iter(r["variants"]))]
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
    for r in results:
        if len(r["variants"]) < 2 and not r.get("watched_max"):
            continue
        print(f"\n{r['name']}, side by side over {r['wall']:.0f} s:\n")
        print("| daemon | CPU | RSS (peak) | watched | longest sample round |")
        print("|---|---|---|---|---|")
        for v, x in r["variants"].items():
            rm = x["round_max"]
            print(f"| {v} | {r['share'][v] * 100:.3f} % | {x['rss']:.1f} MiB ({x['hwm']:.1f} MiB) | "
                  f"{x['watched']} | {'%.1f ms' % (rm * 1000) if rm is not None else '-'} |")
        if r.get("watched_max"):
            (a, xa), (b, xb) = r["variants"].items()
            if xb["watched"] > xa["watched"]:
                print(f"\nper watched process: {(xb['rss'] - xa['rss']) * 1024 / (xb['watched'] - xa['watched']):.1f} KiB "
                      f"resident, {(xb['hwm'] - xa['hwm']) * 1024 / (xb['watched'] - xa['watched']):.1f} KiB at the peak, "
                      f"{(r['share'][b] - r['share'][a]) * 100 / (xb['watched'] - xa['watched']) * 1000:.4f} % of one CPU "
                      f"per 1,000")
    present = [r for r in results if r.get("present")]
    if len(present) == 2:
        a, b = present
        for v in a["variants"]:
            print(f"\ndiscovery ({v}): {b['present']} present instead of {a['present']}, {n} selected: "
                  f"{(b['share'][v] - a['share'][v]) * 100:+.3f} % of one CPU")


def verdicts(results, n):
    """The daemon's cost targets (BENCHMARKS.md, "Daemon"), each with what
    this run measured and whether it is met, so that a run says plainly
    what the tables hold."""
    lines = []

    def say(what, measured, met):
        lines.append(f"| {what} | {measured} | {'met' if met else '**not met**'} |")

    by = {r["name"]: r for r in results}
    steady = by.get("defaults, after the first censuses") or by.get("defaults")
    if steady:
        s = steady["share"]
        d = s[next(iter(steady["variants"]))]
        floor, top = s.get("statm-reader"), s.get("top -b -d 1")
        ratios = ", ".join(x for x in (f"{d / floor:.2f}x the floor" if floor else "",
                                       f"{d / top:.2f}x top -d 1" if top else "") if x)
        say(f"{n} watched, {steady['name']}: CPU under 0.5 % of one CPU", f"{d * 100:.3f} % ({ratios})",
            d < 0.005)
        say(f"{n} watched: resident under 20 MiB at its peak", f"{steady['hwm']:.1f} MiB", steady["hwm"] < 20)
        day = steady["growth_hour"] * 24 / 1048576
        say(f"{n} watched: database under 0.25 MiB per process-day", f"{day:.3f} MiB", day < 0.25)
    present = [r for r in results if r.get("present")]
    if len(present) == 2:
        a, b = present
        v = next(iter(a["variants"]))
        extra = b["share"][v] - a["share"][v]
        say(f"{b['present']} present, {n} selected: discovery adds under 0.2 % of one CPU",
            f"{extra * 100:+.3f} %", extra < 0.002)
    for r in results:
        if not r.get("watched_max"):
            continue
        (a, xa), (b, xb) = r["variants"].items()
        if xb["watched"] > xa["watched"]:
            # resident, not the peak: both daemons' peaks hold the same
            # start (the kernel's BTF read for the change watch)
            per = (xb["rss"] - xa["rss"]) * 1024 / (xb["watched"] - xa["watched"])
            say(f"{xb['watched']} watched: memory bounded", f"{per:.1f} KiB resident per watched process, "
                f"{xb['rss']:.1f} MiB in all ({xb['hwm']:.1f} MiB at the peak)", per < 64)
        rm = xb["round_max"]
        say(f"{xb['watched']} watched: no sample round longer than the SampleInterval (1 s)",
            f"{rm * 1000:.1f} ms" if rm is not None else "not exported", rm is not None and rm < 1.0)
    if lines:
        print("\n| target | measured | |\n|---|---|---|")
        print("\n".join(lines))


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
    ap.add_argument("--watched", type=int, default=10000,
                    help="processes watched in the scale scenario (0: none), beside a daemon watching --processes")
    ap.add_argument("--watched-seconds", type=int, default=330, help="window of the scale scenario")
    ap.add_argument("--watched-settle", action=argparse.BooleanOptionalAction, default=True,
                    help="start the scale scenario's window once every watched process had its first census "
                         "(the default; with --watched-seconds 330: the steady state over a whole CensusInterval)")
    ap.add_argument("--only", default="defaults,steady,fast,present,watched",
                    help="the scenarios to run, of defaults, steady, fast, present, watched")
    args = ap.parse_args()
    only = set(args.only.split(","))

    # a descriptor per pipe here, the readers' and the daemon's per process
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    r, w = os.pipe()  # the targets' stdin: closing w ends them all
    targets, others = [], []
    try:
        targets = start_targets(args.processes, "idle-target", args.mib, 2, r)
        results = []
        if "defaults" in only:
            results.append(scenario("defaults", targets, 1000, args.seconds, 20, "", True))
        if "steady" in only:
            results.append(scenario("defaults, after the first censuses", targets, 1000, args.seconds, 20, "",
                                    True, settle=True))
        if "fast" in only:
            results.append(scenario("SampleInterval=100ms", targets, 100, args.fast_seconds, 20,
                                    "[Sampling]\nSampleInterval=100ms\n", False))
        if args.watched > args.processes and "watched" in only:
            # 1 MiB and no threads each: 10,000 processes of three threads
            # would take most of a pid_max of 32768
            wr, ww = os.pipe()
            more = start_targets(args.watched - args.processes, "idle-target", 1, 0, wr)
            try:
                variants = {
                    f"MaxProcesses={args.processes}": (f"MaxProcesses={args.processes}\n", []),
                    f"MaxProcesses={args.watched}": (f"MaxProcesses={args.watched}\n", []),
                }
                settle = dict(zip(variants, (args.processes, args.watched))) if args.watched_settle else False
                name = f"{args.watched} idle-target present" + (", after the first censuses" if settle else "")
                res = scenario(name, targets, 1000, args.watched_seconds, 30, "", False, with_floor=False,
                               variants=variants, settle=settle)
                res["watched_max"] = args.watched
                results.append(res)
            finally:
                os.close(ww)
                os.close(wr)
                for t in more:
                    t.wait()
        if args.present > args.processes and "present" in only:
            # side by side: the process watch without the connector (a
            # network namespace of its own, as under the unit), the proc
            # connector without the watch, and neither (listing /proc)
            no_watch = "\n[Sampling]\nProcessWatch=no\n"
            variants = {"ramwatchd, process watch (BPF)": ("", ["unshare", "--net"]),
                        "ramwatchd, proc connector": (no_watch, []),
                        "ramwatchd, listing /proc": (no_watch, ["unshare", "--net"])}
            res = scenario(f"defaults, {args.processes} present", targets, 1000, args.present_seconds, 20, "",
                           False, with_floor=False, variants=variants)
            res["present"] = args.processes
            results.append(res)
            others = start_targets(args.present - args.processes, "idle-other", 1, 0, r)
            res = scenario(f"defaults, {args.present} present", targets, 1000, args.present_seconds, 20, "",
                           False, with_floor=False, variants=variants)
            res["present"] = args.present
            results.append(res)
    finally:
        os.close(w)
        os.close(r)
        for t in targets + others:
            t.wait()
    report(results, args.processes)
    verdicts(results, args.processes)

if __name__ == "__main__":
    sys.exit(main())
