#!/usr/bin/env python3
"""What a snapshot of every process costs under Wine, the daemon's
discovery and fast sampler in one NtQuerySystemInformation call
(daemon/windows/win-procs*.c), with Wine's own processes alone and with
idle processes (bench/windows/idle.c) started until 200 are listed:
medians of REPEATS snapshots by tests/windows/procsnap.exe --time, the
parse of the buffer alone, and the same figures read process by process
(OpenProcess, GetProcessMemoryInfo, GetProcessTimes) for comparison.
Prints a Markdown table for BENCHMARKS.md.  Run by make bench-windows."""
import json
import os
import shutil
import subprocess
import sys
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
WIN = os.path.join(BUILD, "windows")
WINE = shutil.which("wine64") or "/usr/lib/wine/wine64"
WINESERVER = shutil.which("wineserver") or "/usr/lib/wine/wineserver"
REPEATS = int(os.environ.get("REPEATS", "51"))
TARGET = int(os.environ.get("PROCESSES", "200"))


def times(env):
    out = subprocess.run([WINE, os.path.join(WIN, "tests", "procsnap.exe"), "--time", str(REPEATS)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def listed(env):
    out = subprocess.run([WINE, os.path.join(WIN, "tests", "procsnap.exe")], env=env, capture_output=True,
                         text=True, check=True).stdout
    return len(json.loads(out)["processes"])


def row(t):
    n = t["processes"]
    return (f"| {n} | {t['snapshot_us'] / 1000:.2f} ms | {t['snapshot_us'] / n:.1f} µs | "
            f"{t['parse_us'] / 1000:.3f} ms | {t['one_by_one_us'] / 1000:.2f} ms | "
            f"{t['one_by_one_us'] / t['snapshot_us']:.1f}x |")


def main():
    env = dict(os.environ, WINEDEBUG="-all",
               WINEPREFIX=os.environ.get("WINEPREFIX", os.path.abspath(os.path.join(WIN, "wineprefix"))))
    env.pop("DISPLAY", None)
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([WINESERVER, "-k"], env=env, **quiet)
    subprocess.run([WINESERVER, "-w"], env=env, **quiet)
    subprocess.run([WINESERVER, "-p"], env=env, **quiet)
    # the first program starts Wine's services, which would hold a pipe of
    # ours open: its output goes nowhere
    subprocess.run([WINE, os.path.join(WIN, "tests", "procsnap.exe"), "--help"], env=env, **quiet)
    print("| processes | snapshot | per process | parse alone | one by one | ratio |", flush=True)
    print("|---:|---:|---:|---:|---:|---:|")
    print(row(times(env)))
    idle = []
    try:
        # started until the snapshot lists TARGET processes (procsnap.exe
        # itself among them; Wine's own come and go)
        for _ in range(10):
            n = listed(env)
            if n >= TARGET:
                break
            for _ in range(TARGET - n):
                idle.append(subprocess.Popen([WINE, os.path.join(WIN, "bench", "idle.exe")], env=env,
                                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL))
            time.sleep(5)  # each takes tens of milliseconds to start, longer when many start at once
        else:
            raise SystemExit(f"fewer than {TARGET} processes listed after starting {len(idle)}")
        print(row(times(env)))
    finally:
        for p in idle:
            p.stdin.close()
        for p in idle:
            p.wait()
        subprocess.run([WINESERVER, "-k"], env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
