#!/usr/bin/env python3
"""A census of the Windows ground-truth holder under Wine beside the bare
VirtualQueryEx walk of the same process (the floor: what any census must
at least do), with the holder as it is and with 20,000 more reservations.
Medians of REPEATS runs; the census's own cost is its cost.wall_us.
Prints a Markdown table for BENCHMARKS.md.  Run by make bench-windows."""
import json
import os
import shutil
import statistics
import subprocess
import sys

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
WIN = os.path.join(BUILD, "windows")
WINE = shutil.which("wine64") or "/usr/lib/wine/wine64"
WINESERVER = shutil.which("wineserver") or "/usr/lib/wine/wineserver"
REPEATS = int(os.environ.get("REPEATS", "11"))


def main():
    env = dict(os.environ, WINEDEBUG="-all",
               WINEPREFIX=os.environ.get("WINEPREFIX", os.path.abspath(os.path.join(WIN, "wineprefix"))))
    # one wineserver for the runs, not holding this script's output open
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([WINESERVER, "-k"], env=env, **quiet)
    subprocess.run([WINESERVER, "-w"], env=env, **quiet)
    subprocess.run([WINESERVER, "-p"], env=env, **quiet)
    print("| holder | regions | bare walk | census (default) | ratio | census --no-evidence | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for extra in (0, 20000):
        holder = subprocess.Popen([WINE, os.path.join(WIN, "tests", "holder.exe"), "--regions", str(extra)], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        pid = json.loads(holder.stdout.readline())["pid"]
        walk = subprocess.run([WINE, os.path.join(WIN, "bench", "walk.exe"), str(pid), str(REPEATS)], env=env,
                              capture_output=True, text=True, check=True).stdout.split()
        regions, walk_us = int(walk[0]), float(walk[1])
        costs = {}
        for flags in ((), ("--no-evidence",)):
            runs = []
            for _ in range(REPEATS):
                out = subprocess.run([WINE, os.path.join(WIN, "ramwatch.exe"), "scan", str(pid), "--json", *flags],
                                     env=env, capture_output=True, text=True, check=True).stdout
                runs.append(json.loads(out)["cost"]["wall_us"])
            costs[flags] = statistics.median(runs)
        holder.stdin.close()
        holder.wait()
        full, light = costs[()], costs[("--no-evidence",)]
        print(f"| +{extra} reservations | {regions} | {walk_us / 1000:.1f} ms | {full / 1000:.1f} ms | "
              f"{full / walk_us:.1f}x | {light / 1000:.1f} ms | {light / walk_us:.1f}x |")
    subprocess.run([WINESERVER, "-k"], env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
