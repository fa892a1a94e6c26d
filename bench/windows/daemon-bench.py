#!/usr/bin/env python3
"""What ramwatchd.exe costs under Wine beside what ramwatchd costs on Linux,
in one run: the real daemon of each platform, each in the foreground with
its default intervals and the same configuration (Watch=name:..., and
MinPrivate=0 so that every one is followed), each watching PROCESSES idle
processes of its own platform (bench/windows/idle.c under Wine, holding
nothing; bench/idle-target on Linux, 4 MiB of heap and two sleeping
threads, as bench/daemon-bench.py starts them).

Once both daemons have stored the first census of every process they
watch (the steady state), the CPU of each daemon's process (utime + stime
of /proc/PID/stat, every thread's: the kernel's own accounting; the Wine
daemon is a Unix process like any other) and of wineserver (the Wine
daemon's snapshots and census walks are served by it) over the same
window of SECONDS, as a share of one CPU, and their ratios.  The window
holds a whole CensusInterval (5 min) by default, so every process has its
interval census in it.  Before the daemons start, wineserver's CPU with
the idle processes alone over BASELINE seconds: what it spends without the
daemon.  --windows K measures K windows one after another with the same
daemons.  Prints Markdown tables for BENCHMARKS.md.

    make bench-windows      # or: RAMWATCH_BUILD=build WINEPREFIX=build/windows/wineprefix
                            #     bench/windows/daemon-bench.py [--processes 200] [--seconds 330]
                            #     [--baseline-seconds 60] [--windows 1] [--keep]
"""
import argparse
import importlib.util
import json
import os
import platform
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
WIN = os.path.join(BUILD, "windows")
WINE = shutil.which("wine64") or "/usr/lib/wine/wine64"
WINESERVER = shutil.which("wineserver") or "/usr/lib/wine/wineserver"
PIPE = r"\\.\pipe\ramwatch-bench-%d" % os.getpid()
CONFIG = "[Watch]\nWatch=name:{name}\nMinPrivate=0\n"
STEP = 10  # seconds between the reads of each daemon's CPU within a window

# the Linux daemon's bench: how its targets are started, its CPU read and
# its first censuses waited for, shared rather than written twice
_spec = importlib.util.spec_from_file_location(
    "daemon_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon-bench.py"))
linux = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(linux)
cpu_seconds, status_kib, TICK = linux.cpu_seconds, linux.status_kib, linux.TICK
# and the Wine core's: which wineserver is the prefix's
_spec = importlib.util.spec_from_file_location(
    "core_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "core-bench.py"))
core = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(core)
wineserver_pid = core.wineserver_pid


def winpath(path):
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def wine_count(env, db, query):
    """One number from the Wine daemon's database while it runs, read by
    ramwatch.exe under Wine (the same SQLite and locks as the writer's);
    None while the database is not there yet or busy."""
    r = subprocess.run([WINE, os.path.join(WIN, "ramwatch.exe"), "sql", "--db", winpath(db), "--format", "json",
                        query], env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        return None
    rows = json.loads(r.stdout)
    return next(iter(rows[0].values())) if rows else None


def wine_first_censuses_done(env, db, n, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        done = wine_count(env, db, "SELECT count(*) AS n FROM censuses WHERE trigger = 'first'")
        if done is not None and done >= n:
            return time.monotonic() - t0
        time.sleep(5)
    raise SystemExit(f"ramwatchd.exe did not store the first census of {n} processes in {timeout} s")


def window_rows(db, t0_ms, t1_ms):
    """Processes watched at the end, and the censuses stored in the window
    with the CPU their budget charged, from the database once closed."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        watched = con.execute("SELECT count(*) FROM processes WHERE exited_at IS NULL").fetchone()[0]
        censuses = con.execute("SELECT count(*), coalesce(sum(cpu_us), 0) FROM censuses WHERE time BETWEEN ? AND ?",
                               (t0_ms, t1_ms)).fetchone()
        return watched, censuses
    finally:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--processes", type=int, default=int(os.environ.get("PROCESSES", "200")))
    ap.add_argument("--seconds", type=int, default=330, help="each window (>= CensusInterval, 5 min)")
    ap.add_argument("--windows", type=int, default=1, help="windows measured one after another")
    ap.add_argument("--baseline-seconds", type=int, default=60,
                    help="wineserver with the idle processes alone, before the daemons start")
    ap.add_argument("--keep", action="store_true",
                    help="keep the daemons' state directories and logs, and print each step's CPU with its time")
    args = ap.parse_args()
    n = args.processes

    for path in (WINE, os.path.join(WIN, "ramwatchd.exe"), os.path.join(WIN, "ramwatch.exe"),
                 os.path.join(WIN, "bench", "idle.exe"), os.path.join(BUILD, "ramwatchd"),
                 os.path.join(BUILD, "bench", "idle-target")):
        if not os.path.exists(path):
            raise SystemExit(f"needs {path} (make bench-windows builds it)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    prefix = os.path.abspath(os.environ.get("WINEPREFIX", os.path.join(WIN, "wineprefix")))
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=prefix)
    env.pop("DISPLAY", None)
    env.pop("RAMWATCH_DB", None)
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # one persistent server for the run, its services started before anything is measured
    subprocess.run([WINESERVER, "-k"], env=env, **quiet)
    subprocess.run([WINESERVER, "-w"], env=env, **quiet)
    subprocess.run([WINESERVER, "-p"], env=env, **quiet)
    subprocess.run([WINE, os.path.join(WIN, "ramwatchd.exe"), "--help"], env=env, **quiet)

    load0 = loadavg()
    tmp = tempfile.mkdtemp(prefix="ramwatch-win-bench.")
    r, w = os.pipe()  # the Linux targets' stdin: closing w ends them all
    idle, targets, daemons = [], [], {}
    try:
        for _ in range(n):
            idle.append(subprocess.Popen([WINE, os.path.join(WIN, "bench", "idle.exe")], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL))
        targets = linux.start_targets(n, "idle-target", 4, 2, r)
        time.sleep(10)  # each Wine process takes tens of milliseconds to start, longer when many start at once
        server = wineserver_pid(prefix)
        s0, b0 = cpu_seconds(server), time.monotonic()
        time.sleep(args.baseline_seconds)
        baseline = (cpu_seconds(server) - s0) / (time.monotonic() - b0)

        dirs = {}
        for name, target in (("linux", "idle-target"), ("wine", "idle.exe")):
            d = os.path.join(tmp, name)
            os.makedirs(os.path.join(d, "state"))
            with open(os.path.join(d, "ramwatchd.conf"), "w") as f:
                f.write(CONFIG.format(name=target))
            dirs[name] = d
        d = dirs["linux"]
        daemons["linux"] = subprocess.Popen(
            [os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", os.path.join(d, "ramwatchd.conf"),
             "--state-dir", os.path.join(d, "state"), "--socket", os.path.join(d, "ramwatch.sock"),
             "--log-level", "warning"], stderr=subprocess.DEVNULL)
        d = dirs["wine"]
        wlog = open(os.path.join(d, "stderr.log"), "w")
        daemons["wine"] = subprocess.Popen(
            [WINE, os.path.join(WIN, "ramwatchd.exe"), "--foreground", "--config",
             winpath(os.path.join(d, "ramwatchd.conf")), "--state-dir", winpath(os.path.join(d, "state")),
             "--pipe", PIPE, "--log-level", "warning"], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=wlog)
        dbs = {k: os.path.join(v, "state", "ramwatch.db") for k, v in dirs.items()}
        settle_linux = linux.first_censuses_done(dbs["linux"], n, 1200)
        settle_wine = wine_first_censuses_done(env, dbs["wine"], n, 1200)
        time.sleep(5)  # the last first census's store cycle

        windows = []
        for _ in range(args.windows):
            c0 = {k: cpu_seconds(p.pid) for k, p in daemons.items()}
            s0, t0, ms0 = cpu_seconds(server), time.monotonic(), int(time.time() * 1000)
            # each daemon's CPU every STEP seconds too: the median step is
            # its cost between censuses, the rest the censuses'
            steps, last = {k: [] for k in daemons}, dict(c0)
            while time.monotonic() - t0 < args.seconds - STEP / 2:
                time.sleep(min(STEP, args.seconds - (time.monotonic() - t0)))
                for k, p in daemons.items():
                    now = cpu_seconds(p.pid)
                    steps[k].append(now - last[k])
                    last[k] = now
                if args.keep:
                    print(int(time.time() * 1000), *(f"{k} {steps[k][-1] / STEP * 100:.1f} %" for k in daemons),
                          file=sys.stderr, flush=True)
            time.sleep(max(0.0, args.seconds - (time.monotonic() - t0)))
            c1 = {k: cpu_seconds(p.pid) for k, p in daemons.items()}
            s1, t1, ms1 = cpu_seconds(server), time.monotonic(), int(time.time() * 1000)
            wall = t1 - t0
            windows.append({"wall": wall, "ms": (ms0, ms1), "load": loadavg(),
                            "linux": (c1["linux"] - c0["linux"]) / wall, "wine": (c1["wine"] - c0["wine"]) / wall,
                            "server": (s1 - s0) / wall,
                            "between": {k: statistics.median(v) / STEP for k, v in steps.items()},
                            "largest": {k: max(v) / STEP for k, v in steps.items()}})
        mem = {k: (status_kib(p.pid, "VmRSS") / 1024, status_kib(p.pid, "VmHWM") / 1024) for k, p in daemons.items()}
        daemons["linux"].terminate()
        os.kill(daemons["wine"].pid, signal.SIGINT)  # Ctrl-C: the last rows written, the database closed
        codes = {k: p.wait(timeout=120) for k, p in daemons.items()}
        if codes["wine"] != 0:
            raise SystemExit(f"ramwatchd.exe exited with {codes['wine']}: {open(wlog.name).read()}")
        for x in windows:
            x["rows"] = {k: window_rows(dbs[k], *x["ms"]) for k in dbs}
    finally:
        for p in daemons.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        os.close(w)
        os.close(r)
        for p in idle:
            p.stdin.close()
        for p in targets + idle:
            p.wait()
        subprocess.run([WINESERVER, "-k"], env=env, **quiet)
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    wine_version = subprocess.run([WINE, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"# ramwatchd.exe under Wine beside ramwatchd, {n} idle processes each ({platform.machine()}, "
          f"{os.cpu_count()} CPUs, Linux {platform.release()}, {wine_version})\n")
    print(f"load average {load0} at the start; the first censuses of all took {settle_linux:.0f} s on Linux, "
          f"{settle_wine:.0f} s more under Wine; wineserver with the idle processes alone: "
          f"{baseline * 100:.3f} % over {args.baseline_seconds} s\n")
    print("| window | load at its end | ramwatchd (Linux) | ramwatchd.exe (Wine) | wineserver | "
          "ramwatchd.exe + wineserver | ramwatchd.exe / ramwatchd | with wineserver's |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for x in windows:
        together = x["wine"] + x["server"]
        print(f"| {x['wall']:.0f} s | {x['load']} | {x['linux'] * 100:.3f} % | {x['wine'] * 100:.3f} % | "
              f"{x['server'] * 100:.3f} % | {together * 100:.3f} % | {x['wine'] / max(x['linux'], 1e-9):.1f}x | "
              f"{together / max(x['linux'], 1e-9):.1f}x |")
    print(f"\n| daemon | watched | RSS (peak) | window | between censuses (median {STEP} s) | largest {STEP} s | "
          "censuses | their CPU: spent (the rest of the window) | charged to the budget |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for k, name in (("linux", "ramwatchd (Linux)"), ("wine", "ramwatchd.exe (Wine)")):
        for x in windows:
            watched, (count, charged) = x["rows"][k]
            # under 5 clock ticks a step, the median says nothing
            if x["between"][k] * STEP * TICK >= 5:
                spent = (x[k] - x["between"][k]) * x["wall"]
                between = f"{x['between'][k] * 100:.3f} %"
                spent = f"{spent:.2f} s ({spent / max(count, 1) * 1000:.1f} ms each)"
            else:
                between = spent = f"under the clock's {1000 / TICK:.0f} ms ticks"
            print(f"| {name} | {watched} | {mem[k][0]:.1f} MiB ({mem[k][1]:.1f} MiB) | {x[k] * 100:.3f} % | "
                  f"{between} | {x['largest'][k] * 100:.3f} % | {count} | {spent} | {charged / 1e6:.2f} s ({charged / 1e3 / max(count, 1):.1f} ms each) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
