#!/usr/bin/python3
"""Builds or configurations of ramwatchd side by side, over the same window,
on the same N idle processes, beside the floor (bench/statm-reader): for
comparing two builds of the daemon on a noisy machine, where only a run
that shares the noise tells a small difference.

Each variant is NAME=EXTRA, EXTRA being more configuration (\\n for a new
line), optionally after @BUILD: to run that build's ramwatchd.  The window
starts once every variant has stored the first census of every process, so
it holds the steady state (an interval census only when SECONDS reaches
CensusInterval).  Prints each one's CPU share of one CPU and its ratio to
the floor.  With RAMWATCH_BENCH_PERF=DIR, each one is also recorded by
perf over the window (perf record -F 1000, DIR/NAME.data) and its samples
are printed by where they fell (kernel, each library, the program).

    RAMWATCH_BUILD=build bench/daemon-side.py 1000 150 "old=@/tmp/old-build:" "new="
    RAMWATCH_BUILD=build bench/daemon-side.py 1000 120 "def=" "store60=[Sampling]\\nStoreInterval=60s"
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("daemon_bench", os.path.join(HERE, "daemon-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
BUILD = bench.BUILD
PERF_DIR = os.environ.get("RAMWATCH_BENCH_PERF")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n, seconds = int(sys.argv[1]), int(sys.argv[2])
    r, _ = os.pipe()
    targets = bench.start_targets(n, "idle-target", 4, 3, r)
    procs, states = {}, {}
    try:
        for arg in sys.argv[3:]:
            name, extra = arg.split("=", 1)
            build = BUILD
            if extra.startswith("@"):
                build, extra = extra[1:].split(":", 1)
            work = tempfile.mkdtemp(prefix="ramwatch-side-")
            config = os.path.join(work, "ramwatchd.conf")
            with open(config, "w") as f:
                f.write("[Watch]\nWatch=name:idle-target\nMinPrivate=0\n" + extra.replace("\\n", "\n") + "\n")
            states[name] = os.path.join(work, "state")
            procs[name] = subprocess.Popen([os.path.join(build, "ramwatchd"), "--foreground", "--config", config,
                                            "--state-dir", states[name], "--socket", os.path.join(work, "sock"),
                                            "--log-level", "warning"])
        procs["floor"] = subprocess.Popen([os.path.join(BUILD, "bench", "statm-reader"), "1000", "60000",
                                           *[str(t.pid) for t in targets]])
        time.sleep(5)
        for state in states.values():
            bench.first_censuses_done(os.path.join(state, "ramwatch.db"), n, 1200)
        start = {k: bench.cpu_seconds(p.pid) for k, p in procs.items()}
        t0 = time.monotonic()
        recorders = [subprocess.Popen(["perf", "record", "-q", "-F", "1000", "-p", str(p.pid),
                                       "-o", os.path.join(PERF_DIR, k + ".data"), "--", "sleep", str(seconds)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for k, p in procs.items()] if PERF_DIR else []
        time.sleep(seconds)
        for r in recorders:
            r.wait()
        wall = time.monotonic() - t0
        share = {k: (bench.cpu_seconds(p.pid) - start[k]) / wall for k, p in procs.items()}
    finally:
        for p in procs.values():
            p.terminate()
        for p in procs.values():
            p.wait()
        for t in targets:
            t.kill()
    print(f"# {n} processes, {wall:.0f} s, Linux {os.uname().release}")
    for k, s in share.items():
        print(f"{k:20s} {100 * s:.3f} %  {s / max(share['floor'], 1e-9):.2f}x the floor")
    for k in share if PERF_DIR else []:
        report = subprocess.run(["perf", "report", "-i", os.path.join(PERF_DIR, k + ".data"), "--no-children",
                                 "--sort", "dso", "-F", "sample,dso"], capture_output=True, text=True, check=True)
        print(f"# {k}: perf samples by where they fell")
        print("\n".join(line for line in report.stdout.splitlines() if line.strip() and not line.startswith("#")))


if __name__ == "__main__":
    main()
