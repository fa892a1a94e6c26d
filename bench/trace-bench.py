#!/usr/bin/python3
"""Benchmark of ramwatch trace summary (make bench-trace).

Generates memtrace files of 1 M and 20 M events with bench/trace-gen (a
bounded live set, 320 scopes, 400 sites; see trace-gen.c) in
$RAMWATCH_BUILD/bench-trace, then replays each with

    ramwatch trace summary FILE          the analyzer
    jq -c . FILE                         a general JSON reader users reach for
    wc -l FILE                           the floor: reading the file

in one run, each several times after a warm-up read (the file in the page
cache, as when it was just written), and prints the median wall time,
events per second and peak resident memory of each, the ratios, and
whether the targets hold: at least 3 M events/s, and peak memory for
20 M events within 10 % of that for 1 M.

    RAMWATCH_BUILD=build /usr/bin/python3 bench/trace-bench.py [--runs N] [--events N,N]
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build"))
RAMWATCH = BUILD / "ramwatch"
GEN = BUILD / "bench" / "trace-gen"
RSS = BUILD / "bench" / "trace-rss"
OUT = BUILD / "bench-trace"


def measure(cmd):
    """Runs cmd with its output discarded; returns (wall seconds, peak RSS in KiB), measured by
    trace-rss (a small launcher: see trace-rss.c for why not from here)."""
    out = subprocess.run([str(RSS), *map(str, cmd)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: {out.stderr.strip()}")
    wall, rss = out.stdout.split()
    return float(wall), int(rss)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each tool per trace (default 3)")
    ap.add_argument("--events", default="1000000,20000000", help="trace sizes in events")
    ap.add_argument("--jq-runs", type=int, default=1, help="runs of jq per trace (it is slow; default 1)")
    args = ap.parse_args()

    for tool in (RAMWATCH, GEN, RSS):
        if not tool.exists():
            sys.exit(f"{tool} is missing: run make bench-trace")
    OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(n) for n in args.events.split(",")]
    results = {}
    for events in sizes:
        path = OUT / f"trace-{events}.jsonl"
        if not path.exists() or path.stat().st_size == 0:
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([str(GEN), str(events), str(path)], check=True)
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
        tools = {
            "ramwatch trace summary": ([str(RAMWATCH), "trace", "summary", str(path)], args.runs),
            "jq -c .": (["jq", "-c", ".", str(path)], args.jq_runs),
            "wc -l": (["wc", "-l", str(path)], args.runs),
        }
        for name, (cmd, runs) in tools.items():
            samples = [measure(cmd) for _ in range(runs)]
            wall = statistics.median(s[0] for s in samples)
            rss = max(s[1] for s in samples)
            results[(events, name)] = (wall, rss)
            print(f"{events} events  {name:24} {wall:8.3f} s  {events / wall / 1e6:7.2f} M events/s  "
                  f"{rss / 1024:7.1f} MiB", file=sys.stderr)
        results[(events, "size")] = path.stat().st_size

    print(f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, Linux {platform.release()}; "
          f"median of {args.runs} runs (jq: {args.jq_runs}), file in the page cache.")
    print()
    print("| trace | tool | wall time | events/s | peak RSS | time / wc -l |")
    print("|---|---|---:|---:|---:|---:|")
    for events in sizes:
        wc_wall = results[(events, "wc -l")][0]
        size = results[(events, "size")] / 2**20
        for name in ("ramwatch trace summary", "jq -c .", "wc -l"):
            wall, rss = results[(events, name)]
            print(f"| {events / 1e6:g} M events ({size:,.0f} MiB) | `{name}` | {wall:.2f} s | "
                  f"{events / wall / 1e6:.2f} M | {rss / 1024:.1f} MiB | {wall / wc_wall:.1f}x |")
    print()
    for events in sizes:
        rw = results[(events, "ramwatch trace summary")][0]
        jq = results[(events, "jq -c .")][0]
        print(f"- {events / 1e6:g} M events: ramwatch replays {jq / rw:.0f}x faster than jq parses; "
              f"{events / rw / 1e6:.2f} M events/s (target: at least 3 M): "
              f"{'met' if events / rw >= 3e6 else 'NOT met'}.")
    if len(sizes) >= 2:
        small = results[(sizes[0], "ramwatch trace summary")][1]
        large = results[(sizes[-1], "ramwatch trace summary")][1]
        print(f"- Peak memory, {sizes[-1] / 1e6:g} M vs {sizes[0] / 1e6:g} M events: {large / 1024:.1f} MiB vs "
              f"{small / 1024:.1f} MiB ({(large - small) / small * 100:+.1f} %; target: within 10 %): "
              f"{'met' if abs(large - small) <= 0.1 * small else 'NOT met'}.")


if __name__ == "__main__":
    main()
