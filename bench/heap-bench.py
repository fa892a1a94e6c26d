#!/usr/bin/python3
"""What the heap walks cost: a census with them beside the same census
without them (--no-heap), per GiB of heap and per 100,000 chunks.

For glibc heaps of known shapes (tests/helpers/glibc-heap.c): a main heap
of large blocks mostly freed, one of small blocks mostly freed (many
chunks), thread arenas over several heaps; in interleaved rounds, in a
shuffled order each round,

    ramwatch scan PID --json --no-gpu              with the heap walks (the default)
    ramwatch scan PID --json --no-gpu --no-heap    without

the medians of the census's own wall and CPU time (cost.wall_us,
cost.cpu_us), the walk's share (the difference), and that per GiB of the
malloc class's private memory and per 100,000 chunks the walk counted.

    make bench-heap      # or: RAMWATCH_BUILD=build bench/heap-bench.py [--rounds N] [--only NAME]
"""
import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
RAMWATCH = os.path.join(BUILD, "ramwatch")
HEAP = os.path.join(BUILD, "helpers", "glibc-heap")
GiB = 1 << 30

SHAPES = {
    # 512 MiB of blocks up to 32 KiB, three in four freed
    "large-blocks-512m": ["--fragmented=512"],
    # 600,000 blocks of 16 bytes to 2 KiB, three in four freed: many chunks
    "small-blocks-600k": ["--small=600000"],
    # three thread arenas of 150 MiB each, over three heaps each, and fastbins
    "arenas-3x150m": ["--arenas=3", "--arena-size=150", "--fastbins=2000"],
}


def start(args):
    p = subprocess.Popen([HEAP, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        raise SystemExit(f"glibc-heap {args} exited before it was ready")
    return p, json.loads(line)


def census(pid, *extra):
    r = subprocess.run([RAMWATCH, "scan", str(pid), "--json", "--no-gpu", *extra], capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout)


def malloc_class(c):
    return next(k for k in c["classes"] if k["key"] == "malloc")


def ms(us):
    return f"{us / 1000:.1f} ms"


def measure(name, args, rounds):
    p, info = start(args)
    try:
        runs = {"heap": [], "none": []}
        how = None
        for _ in range(rounds):
            order = ["heap", "none"]
            random.shuffle(order)
            for kind in order:
                c = census(info["pid"], *(["--no-heap"] if kind == "none" else []))
                runs[kind].append(c["cost"])
                if kind == "heap":
                    how = malloc_class(c)
                    assert how["unknown"] == 0, how
        k = how
        chunks = int(re.search(r"(\d+) chunks", k["how"]).group(1))
        med = {kind: {f: statistics.median(r[f] for r in runs[kind]) for f in ("wall_us", "cpu_us")}
               for kind in runs}
        walk_wall = med["heap"]["wall_us"] - med["none"]["wall_us"]
        walk_cpu = med["heap"]["cpu_us"] - med["none"]["cpu_us"]
        return {
            "name": name, "private": k["private"], "chunks": chunks,
            "in_use": k["in_use"], "free": k["free"],
            "wall_heap": med["heap"]["wall_us"], "wall_none": med["none"]["wall_us"],
            "cpu_heap": med["heap"]["cpu_us"], "cpu_none": med["none"]["cpu_us"],
            "walk_wall": walk_wall, "walk_cpu": walk_cpu,
            "per_gib": walk_wall * GiB / k["private"], "per_100k": walk_wall * 100000 / chunks,
        }
    finally:
        p.stdin.close()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", help="one shape: " + ", ".join(SHAPES))
    a = ap.parse_args()
    print(f"{platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Linux {platform.release()}, {a.rounds} rounds")
    print()
    print("| heap | malloc private | chunks | census, walked: wall | cpu | census, --no-heap: wall | cpu "
          "| the walk: wall | cpu | per GiB | per 100k chunks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, args in SHAPES.items():
        if a.only and name != a.only:
            continue
        m = measure(name, args, a.rounds)
        print(f"| {m['name']} | {m['private'] / (1 << 20):.0f} MiB | {m['chunks']:,} | {ms(m['wall_heap'])} "
              f"| {ms(m['cpu_heap'])} | {ms(m['wall_none'])} | {ms(m['cpu_none'])} | {ms(m['walk_wall'])} "
              f"| {ms(m['walk_cpu'])} | {ms(m['per_gib'])} | {ms(m['per_100k'])} |", flush=True)


if __name__ == "__main__":
    main()
