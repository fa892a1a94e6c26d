#!/usr/bin/python3
"""Overhead of the allocation tracer (make bench-tracer).

Runs bench/malloc-heavy (4 threads, malloc/free pairs of 16-512 bytes)
untraced, under libramwatch-trace.so at the default threshold and at
--min-bytes 0 (writing JSON Lines, then the binary format), and under heaptrack when it is installed, each several
times, and prints the median wall time and peak resident memory of each
and its ratio to the untraced run.  The tracer is preloaded directly, as
ramwatch trace record preloads it, so the time is the program's, without
trace record's summary (a replay of the trace) at the end.  Traces go to
$RAMWATCH_BUILD/bench-tracer and are removed after each run.

    RAMWATCH_BUILD=build /usr/bin/python3 bench/tracer-bench.py [--runs N] [--pairs N] [--pairs-all N]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build"))
PROG = BUILD / "bench" / "malloc-heavy"
LIB = BUILD / "libramwatch-trace.so"
OUT = BUILD / "bench-tracer"


def measure(cmd, env=None):
    """Wall seconds and peak resident KiB of one run (GNU time's %M)."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd, p.stderr))
    return wall, int(p.stderr.strip().splitlines()[-1])


def clean():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=16_000_000, help="pairs for the untraced, default and heaptrack runs")
    ap.add_argument("--pairs-all", type=int, default=4_000_000, help="pairs for --min-bytes 0 (about 140 bytes of JSON an event, 6 of binary)")
    a = ap.parse_args()
    base = dict(os.environ)
    base.pop("LD_PRELOAD", None)
    cases = [("untraced", a.pairs, lambda: ([str(PROG), "4", str(a.pairs)], base))]
    for name, min_bytes, pairs, fmt in (("tracer, default threshold", None, a.pairs, "binary"),
                                        ("tracer, --min-bytes 0, JSON Lines", "0", a.pairs_all, "json"),
                                        ("tracer, --min-bytes 0, binary", "0", a.pairs_all, "binary")):
        def make(min_bytes=min_bytes, pairs=pairs, fmt=fmt):
            env = dict(base, LD_PRELOAD=str(LIB), RAMWATCH_TRACE_FILE=str(OUT / "t.trace"),
                       RAMWATCH_TRACE_FORMAT=fmt)
            if min_bytes is not None:
                env["RAMWATCH_TRACE_MIN_BYTES"] = min_bytes
            return [str(PROG), "4", str(pairs)], env
        cases.append((name, pairs, make))
    if a.pairs_all != a.pairs:
        cases.append(("untraced", a.pairs_all, lambda: ([str(PROG), "4", str(a.pairs_all)], base)))
    if shutil.which("heaptrack"):
        for pairs in sorted({a.pairs, a.pairs_all}):
            cases.append(("heaptrack", pairs, lambda pairs=pairs: (
                ["heaptrack", "-o", str(OUT / "ht"), str(PROG), "4", str(pairs)], base)))
    results = {}
    for name, pairs, make in cases:
        walls, rss = [], []
        for _ in range(a.runs):
            clean()
            cmd, env = make()
            w, m = measure(cmd, env)
            walls.append(w)
            rss.append(m)
        results[(name, pairs)] = (statistics.median(walls), max(rss))
    clean()
    print("| run | pairs | wall (median of %d) | x untraced | peak RSS |" % a.runs)
    print("|---|---:|---:|---:|---:|")
    for (name, pairs), (w, m) in results.items():
        u = results[("untraced", pairs)][0]
        print("| %s | %d M | %.2f s | %.1f | %d MiB |" % (name, pairs // 1_000_000, w, w / u, round(m / 1024)))


if __name__ == "__main__":
    main()
