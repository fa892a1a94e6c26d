#!/usr/bin/python3
"""What the heap walks cost: a census with them beside the same census
without them (--no-heap), per GiB of heap and per 100,000 of the units the
walk counts (glibc's chunks, pymalloc's pools, jemalloc's extents,
mimalloc's pages in use).

For heaps of known shapes, every byte written (the helpers in
tests/helpers/): glibc main heaps of large blocks and of small blocks
mostly freed, glibc thread arenas over several heaps, and heaps of the
same kind under pymalloc, jemalloc, mimalloc and tcmalloc; in interleaved
rounds, in a shuffled order each round,

    ramwatch scan PID --json --no-gpu              with the heap walks (the default)
    ramwatch scan PID --json --no-gpu --no-heap    without

the medians of the census's own wall and CPU time (cost.wall_us,
cost.cpu_us), the walk's share (the difference), and that per GiB of the
walked class's private memory and per 100,000 units.

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
HELPERS = os.path.join(BUILD, "helpers")
SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GiB = 1 << 30


def helper(name, *args):
    return [os.path.join(HELPERS, name), *args]


# name: the program, the class its walk reads, and the unit its how counts
SHAPES = {
    # 512 MiB of blocks up to 32 KiB, three in four freed
    "glibc-large-blocks-512m": (helper("glibc-heap", "--fragmented=512"), "malloc", "chunks"),
    # 600,000 blocks of 16 bytes to 2 KiB, three in four freed: many chunks
    "glibc-small-blocks-600k": (helper("glibc-heap", "--small=600000"), "malloc", "chunks"),
    # three thread arenas of 150 MiB each, over three heaps each, and fastbins
    "glibc-arenas-3x150m": (helper("glibc-heap", "--arenas=3", "--arena-size=150", "--fastbins=2000"), "malloc",
                            "chunks"),
    # 2,000,000 small objects of seven size classes, one in nine kept
    "pymalloc-2m-objects": (["/usr/bin/python3", os.path.join(SOURCE, "tests/helpers/pymalloc-objects.py"),
                             "fragmented", "2000000"], "python", "pools"),
    # 512 MiB of blocks of 13 sizes up to 1.5 MiB in two threads' arenas, three in four freed
    "jemalloc-512m": (helper("jemalloc-heap", "--mib=512"), "malloc", "extents"),
    # three threads of 200,000 small, 500 medium and 8 large blocks each, three in four freed
    "mimalloc-600k-blocks": (helper("heapstat-mimalloc", "--small=200000"), "malloc", "pages in use"),
    "tcmalloc-600k-blocks": (helper("heapstat-tcmalloc", "--small=200000"), "malloc", None),
}


def start(argv):
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        raise SystemExit(f"{' '.join(argv)} exited before it was ready")
    return p, json.loads(line)


def census(pid, *extra):
    r = subprocess.run([RAMWATCH, "scan", str(pid), "--json", "--no-gpu", *extra], capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout)


def walked_class(c, key):
    return next(k for k in c["classes"] if k["key"] == key)


def ms(us):
    return f"{us / 1000:.1f} ms"


def measure(name, argv, key, unit, rounds):
    p, info = start(argv)
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
                    how = walked_class(c, key)
                    assert how["how"] and how["unknown"] == 0, how
        k = how
        units = int(re.search(r"([\d,]+) " + unit, k["how"]).group(1).replace(",", "")) if unit else None
        med = {kind: {f: statistics.median(r[f] for r in runs[kind]) for f in ("wall_us", "cpu_us")}
               for kind in runs}
        walk_wall = med["heap"]["wall_us"] - med["none"]["wall_us"]
        walk_cpu = med["heap"]["cpu_us"] - med["none"]["cpu_us"]
        return {
            "name": name, "class": key, "private": k["private"], "units": units, "unit": unit,
            "in_use": k["in_use"], "free": k["free"],
            "wall_heap": med["heap"]["wall_us"], "wall_none": med["none"]["wall_us"],
            "cpu_heap": med["heap"]["cpu_us"], "cpu_none": med["none"]["cpu_us"],
            "walk_wall": walk_wall, "walk_cpu": walk_cpu,
            "per_gib": walk_wall * GiB / k["private"], "per_100k": walk_wall * 100000 / units if units else None,
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
    print("| heap | class private | units walked | census, walked: wall | cpu | census, --no-heap: wall | cpu "
          "| the walk: wall | cpu | per GiB | per 100k units |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (argv, key, unit) in SHAPES.items():
        if a.only and name != a.only:
            continue
        m = measure(name, argv, key, unit, a.rounds)
        units = f"{m['units']:,} {m['unit']}" if m["units"] else "-"
        per_100k = ms(m["per_100k"]) if m["per_100k"] else "-"
        print(f"| {m['name']} | {m['class']} {m['private'] / (1 << 20):.0f} MiB | {units} | {ms(m['wall_heap'])} "
              f"| {ms(m['cpu_heap'])} | {ms(m['wall_none'])} | {ms(m['cpu_none'])} | {ms(m['walk_wall'])} "
              f"| {ms(m['walk_cpu'])} | {ms(m['per_gib'])} | {per_100k} |", flush=True)


if __name__ == "__main__":
    main()
