#!/usr/bin/python3
"""The scanner's cost, side by side with the kernel's and pmap's.

For a small process (sleep) and one with 20,000 mappings (bench/many-maps),
runs in interleaved rounds, in a shuffled order each round:

    cat /proc/PID/smaps > /dev/null      the kernel producing the text: the floor
    ramwatch scan PID --json > /dev/null  a whole census
    pmap -X PID > /dev/null               what people use today
    ramwatch scan PID --json --no-gpu     the same without asking NVML (on a
                                          host without it: a failed dlopen)

and bench/steady-check: the daemon's census of the large process (as
ramwatchd takes it, in one process) beside its steady check (smaps_rollup
and the mappings, through maps and through PROCMAP_QUERY; and, when the
change watch says the mappings were kept, smaps_rollup and the names of
the file mappings), 21 rounds; and
reports the median wall time and CPU time (user + system, all threads,
from the kernel's accounting of the children) of each, and their ratios.

    make bench-scan            # or: RAMWATCH_BUILD=build bench/scan-bench.py [--rounds N]
"""
import argparse
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")


def one(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(pid, rounds):
    cmds = {
        "cat": ["cat", f"/proc/{pid}/smaps"],
        "ramwatch": [os.path.join(BUILD, "ramwatch"), "scan", str(pid), "--json"],
        "pmap": ["pmap", "-X", str(pid)],
        "no-gpu": [os.path.join(BUILD, "ramwatch"), "scan", str(pid), "--json", "--no-gpu"],
    }
    samples = {name: ([], []) for name in cmds}
    for name, cmd in cmds.items():  # warm up: page cache, binaries
        one(cmd)
    for _ in range(rounds):
        order = list(cmds)
        random.shuffle(order)
        for name in order:
            wall, cpu = one(cmds[name])
            samples[name][0].append(wall)
            samples[name][1].append(cpu)
    return {name: (statistics.median(w), statistics.median(c)) for name, (w, c) in samples.items()}


def regions(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for _ in f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--mappings", type=int, default=20000)
    args = parser.parse_args()
    random.seed(1)

    small = subprocess.Popen(["sleep", "3600"])
    large = subprocess.Popen([os.path.join(BUILD, "helpers", "many-maps"), str(args.mappings)],
                             stdout=subprocess.PIPE, text=True)
    assert large.stdout.readline().startswith("ready")
    try:
        # the census's own part, per region, on the same text in memory
        saved = os.path.join(BUILD, "bench", "many-maps.smaps")
        with open(f"/proc/{large.pid}/smaps") as src, open(saved, "w") as dst:
            dst.write(src.read())
        parts = subprocess.run([os.path.join(BUILD, "bench", "scan-parts"), saved], capture_output=True,
                               text=True, check=True).stdout.split()
        # the daemon's steady check beside the full census it spares
        steady = subprocess.run([os.path.join(BUILD, "bench", "steady-check"), str(large.pid), "21"],
                                capture_output=True, text=True, check=True).stdout.split()
        rows = []
        for label, proc in (("small (sleep)", small), (f"{args.mappings} mappings (many-maps)", large)):
            n = regions(proc.pid)
            with open(f"/proc/{proc.pid}/smaps") as f:
                size = len(f.read())
            m = measure(proc.pid, args.rounds)
            rows.append((label, n, size, m))
    finally:
        small.kill()
        large.kill()
        small.wait()
        large.wait()

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Linux {platform.release()}; "
          f"{args.rounds} interleaved rounds, medians")
    print()
    print("| process | regions | smaps bytes | cat wall | ramwatch wall | pmap -X wall | ramwatch/cat wall | "
          "ramwatch/pmap wall | cat CPU | ramwatch CPU | pmap CPU | ramwatch/cat CPU | ramwatch/pmap CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, n, size, m in rows:
        (cw, cc), (rw, rc), (pw, pc) = m["cat"], m["ramwatch"], m["pmap"]
        ms = lambda s: f"{s * 1000:.2f} ms"
        ratio = lambda a, b: f"{a / b:.2f}" if b > 0 else "n/a"
        print(f"| {label} | {n} | {size} | {ms(cw)} | {ms(rw)} | {ms(pw)} | {ratio(rw, cw)} | {ratio(rw, pw)} | "
              f"{ms(cc)} | {ms(rc)} | {ms(pc)} | {ratio(rc, cc)} | {ratio(rc, pc)} |")
    print()
    print("| process | ramwatch wall | ramwatch --no-gpu wall | NVML's part | ramwatch --no-gpu/cat wall |")
    print("|---|---:|---:|---:|---:|")
    for label, n, size, m in rows:
        (cw, _), (rw, _), (gw, _) = m["cat"], m["ramwatch"], m["no-gpu"]
        print(f"| {label} | {rw * 1000:.2f} ms | {gw * 1000:.2f} ms | {(rw - gw) * 1000:.2f} ms | {gw / cw:.2f} |")
    q = dict(zip(steady[::2], steady[1::2]))
    print()
    print("| 20000 mappings (many-maps), in the daemon | census | steady check, maps | "
          "steady check, mappings kept | steady check, PROCMAP_QUERY |")
    print("|---|---:|---:|---:|---:|")
    us = lambda k: f"{int(q[k]) / 1000:.2f} ms"
    print(f"| wall | {us('census_wall_us')} | {us('maps_wall_us')} | {us('kept_wall_us')} | {us('ioctl_wall_us')} |")
    print(f"| CPU | {us('census_cpu_us')} | {us('maps_cpu_us')} | {us('kept_cpu_us')} | {us('ioctl_cpu_us')} |")
    print(f"| CPU / census | 1 | {float(q['maps_ratio']):.3f} | {float(q['kept_ratio']):.3f} | "
          f"{float(q['ioctl_ratio']):.3f} |")
    p = dict(zip(parts[::2], parts[1::2]))
    print()
    print(f"the census's own work per region ({p['regions']} regions, in memory, best of 20): parse "
          f"{p['parse_ns']} ns, classify {p['classify_ns']} ns, summarise {p['summarise_ns']} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
