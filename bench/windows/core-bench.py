#!/usr/bin/env python3
"""What the daemon's core costs on Windows, under Wine: tests/windows/
corewatch.exe (discovery, the fast tier, the census tier and the store
cycle of build/windows/lib/libdaemon.a, run by a plain loop with the
daemon's default intervals) watching PROCESSES idle processes
(bench/windows/idle.c, Watch=name:idle.exe, MinPrivate=0), once every one
has had its first census: the CPU of corewatch's own process and of
wineserver (the snapshots and the census walks go through it) over
SECONDS, from /proc/PID/stat (utime + stime), as a share of one CPU.
Prints a Markdown table for BENCHMARKS.md.  Run by make bench-windows."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
WIN = os.path.join(BUILD, "windows")
WINE = shutil.which("wine64") or "/usr/lib/wine/wine64"
WINESERVER = shutil.which("wineserver") or "/usr/lib/wine/wineserver"
TARGET = int(os.environ.get("PROCESSES", "200"))
SECONDS = int(os.environ.get("SECONDS", "60"))
TICK = os.sysconf("SC_CLK_TCK")

CONFIG = """\
[Watch]
Watch=name:idle.exe
MinPrivate=0
"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wineserver_pid(prefix):
    """The wineserver of this prefix: the one whose environment names it."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if not f.read().startswith("wineserver"):
                    continue
            with open(f"/proc/{d}/environ", "rb") as f:
                if f"WINEPREFIX={prefix}".encode() in f.read().split(b"\0"):
                    return int(d)
        except OSError:
            continue
    raise SystemExit("no wineserver of the prefix")


def winpath(path):
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def main():
    prefix = os.environ.get("WINEPREFIX", os.path.abspath(os.path.join(WIN, "wineprefix")))
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=prefix)
    env.pop("DISPLAY", None)
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([WINESERVER, "-k"], env=env, **quiet)
    subprocess.run([WINESERVER, "-w"], env=env, **quiet)
    subprocess.run([WINESERVER, "-p"], env=env, **quiet)
    subprocess.run([WINE, os.path.join(WIN, "tests", "corewatch.exe"), "--help"], env=env, **quiet)
    idle, core = [], None
    tmp = tempfile.mkdtemp(prefix="core-bench.")
    try:
        for _ in range(TARGET):
            idle.append(subprocess.Popen([WINE, os.path.join(WIN, "bench", "idle.exe")], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL))
        time.sleep(10)  # each takes tens of milliseconds to start, longer when many start at once
        cfg = os.path.join(tmp, "ramwatchd.conf")
        with open(cfg, "w") as f:
            f.write(CONFIG)
        core = subprocess.Popen([WINE, os.path.join(WIN, "tests", "corewatch.exe"), winpath(cfg),
                                 winpath(os.path.join(tmp, "ramwatch.db")), "--no-samples"], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        followed, censused = set(), set()
        done = threading.Event()

        def read():
            for line in core.stdout:
                x = json.loads(line)
                if x["event"] == "followed":
                    followed.add(x["pid"])
                elif x["event"] == "census":
                    censused.add(x["pid"])
                if len(followed) >= TARGET and censused >= followed:
                    done.set()
        threading.Thread(target=read, daemon=True).start()
        if not done.wait(600):
            raise SystemExit(f"{len(followed)} followed and {len(censused)} censused in 600 s")
        time.sleep(5)  # the last census's store cycle
        server = wineserver_pid(prefix)
        c0, s0, t0 = cpu_seconds(core.pid), cpu_seconds(server), time.monotonic()
        time.sleep(SECONDS)
        c1, s1, t1 = cpu_seconds(core.pid), cpu_seconds(server), time.monotonic()
        wall = t1 - t0
        print("| watched | window | corewatch CPU | wineserver CPU | together |")
        print("|---:|---:|---:|---:|---:|")
        print(f"| {len(followed)} | {wall:.0f} s | {(c1 - c0) / wall * 100:.2f} % | {(s1 - s0) / wall * 100:.2f} % | "
              f"{(c1 - c0 + s1 - s0) / wall * 100:.2f} % |")
    finally:
        if core:
            core.stdin.close()
            core.wait(timeout=120)
        for p in idle:
            p.stdin.close()
        for p in idle:
            p.wait()
        subprocess.run([WINESERVER, "-k"], env=env)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
