#!/usr/bin/python3
"""Two or more builds of ramwatch replaying one trace, their runs alternated.

A step of a few percent in the replay's CPU time is within the spread of
one run to the next on a shared machine, and a build measured after
another meets other load: so each round runs every build once, in turn,
and the rounds' first quartile and median of each build's CPU time (user
and system, from bench/trace-rss) are compared.  The first build is the
reference of the last column.

    /usr/bin/python3 bench/trace-ab.py [--rounds N] FILE RAMWATCH [RAMWATCH ...]

FILE is a trace (JSON Lines or binary, in the page cache: it is read once
before the rounds); each RAMWATCH a ramwatch binary, e.g. build/ramwatch
and the ramwatch of a build of another tree.
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RSS = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build")) / "bench" / "trace-rss"


def run(ramwatch, trace):
    """(CPU seconds, peak RSS in KiB) of one replay, its output discarded."""
    out = subprocess.run([str(RSS), ramwatch, "trace", "summary", trace], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"trace-ab: {ramwatch} trace summary {trace} failed: {out.stderr.strip()}")
    _wall, rss, cpu = out.stdout.split()
    return float(cpu), int(rss)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("trace")
    p.add_argument("ramwatch", nargs="+")
    a = p.parse_args()
    if not RSS.exists():
        sys.exit(f"{RSS} is missing: run make {RSS.relative_to(ROOT) if RSS.is_relative_to(ROOT) else RSS}")
    with open(a.trace, "rb") as f:
        while f.read(1 << 20):
            pass
    cpu = {b: [] for b in a.ramwatch}
    rss = {b: [] for b in a.ramwatch}
    for _ in range(a.rounds):
        for b in a.ramwatch:
            c, r = run(b, a.trace)
            cpu[b].append(c * 1000)
            rss[b].append(r)
    print(f"{a.rounds} rounds of {a.trace}, CPU time in ms")
    print("| ramwatch | first quartile | median | peak RSS | first quartile / the first's |")
    print("|---|---:|---:|---:|---:|")
    reference = None
    for b in a.ramwatch:
        q1 = sorted(cpu[b])[len(cpu[b]) // 4]
        reference = reference or q1
        print(f"| {b} | {q1:.1f} | {statistics.median(cpu[b]):.1f} | "
              f"{statistics.median(rss[b]) / 1024:.1f} MiB | {q1 / reference:.3f} |")


if __name__ == "__main__":
    main()
