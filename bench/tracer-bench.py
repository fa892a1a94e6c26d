#!/usr/bin/python3
"""Overhead of the allocation tracer (make bench-tracer).

The load is bench/malloc-heavy at the scale the targets are set at, named "malloc-heavy"
in the table: 4 threads, 16,000,000 malloc/free pairs of 16-512 bytes and
2,000 blocks of 256 KiB among them.  It runs untraced, with malloc and
free passed through a preloaded library that does nothing else
(bench/malloc-passthrough.c: the floor of any preloaded tracer), under
libramwatch-trace.so at the default threshold and at --min-bytes 0 (the
binary file), under `ramwatch trace record --min-bytes 0` (the same, then
the summary trace record prints, a replay of the whole trace), and under
heaptrack when it is installed; then the default threshold again on
128,000,000 pairs, where the untraced run is long enough for a small
ratio to mean something, --min-bytes 0 writing JSON Lines on fewer pairs
(a JSON trace of 16 M pairs would take 4.4 GB), and a real program:
CPython (bench/python-json.py, PYTHONMALLOC=malloc so every object is a
malloc call).  Every case runs once a round for several rounds, so a
machine whose load changes changes every case alike; the table gives each
case's median wall time and CPU time (user and system, of every thread and
child), their ratios to the untraced run of the same load, the range of
the wall ratio round by round, and the peak resident memory, then the
targets (--min-bytes 0 and trace record from start to end, its summary
included, within 10x, the default threshold within 1.1x) as met or not, in
wall and in CPU time.  Except in
the trace record case the tracer is preloaded directly, as trace record
preloads it, so the time is the program's.  Traces go to
$RAMWATCH_BUILD/bench-tracer and are removed after each run.

    RAMWATCH_BUILD=build /usr/bin/python3 bench/tracer-bench.py [--runs N] [--pairs N] [--big N]
        [--pairs-json N] [--pairs-long N] [--no-python] [--record-only]
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
PYTHON_WORK = ROOT / "bench" / "python-json.py"
LIB = BUILD / "libramwatch-trace.so"
PASSTHROUGH = BUILD / "bench" / "libmalloc-passthrough.so"
RAMWATCH = BUILD / "ramwatch"
OUT = BUILD / "bench-tracer"


def measure(cmd, env=None):
    """Wall seconds, CPU seconds (user and system, with the children it
    waited for) and peak resident KiB of one run."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd, err))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def clean():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=16_000_000,
                    help="pairs for the untraced, default threshold, binary --min-bytes 0, trace record and "
                         "heaptrack runs")
    ap.add_argument("--big", type=int, default=2_000, help="blocks of 256 KiB among the pairs")
    ap.add_argument("--pairs-json", type=int, default=4_000_000,
                    help="pairs for --min-bytes 0 writing JSON Lines (about 140 bytes an event)")
    ap.add_argument("--pairs-long", type=int, default=128_000_000,
                    help="pairs for the default threshold again: at 16 M the untraced run takes under 0.1 s, "
                         "near the resolution of a wall clock on a busy machine")
    ap.add_argument("--no-python", action="store_true", help="leave out the CPython program")
    ap.add_argument("--record-only", action="store_true",
                    help="only the untraced run, --min-bytes 0 and trace record (the closing summary's cost)")
    a = ap.parse_args()
    base = dict(os.environ)
    base.pop("LD_PRELOAD", None)

    def load(pairs):
        return [str(PROG), "4", str(pairs), str(a.big)]

    def untraced(pairs):
        return lambda: (load(pairs), base)

    def traced(pairs, min_bytes, fmt):
        def make():
            env = dict(base, LD_PRELOAD=str(LIB), RAMWATCH_TRACE_FILE=str(OUT / "t.trace"),
                       RAMWATCH_TRACE_FORMAT=fmt)
            if min_bytes is not None:
                env["RAMWATCH_TRACE_MIN_BYTES"] = min_bytes
            return load(pairs), env
        return make

    def passthrough(pairs):
        return lambda: (load(pairs), dict(base, LD_PRELOAD=str(PASSTHROUGH)))

    def record(pairs):
        return lambda: ([str(RAMWATCH), "trace", "record", "--min-bytes", "0", "--format", "binary",
                         "-o", str(OUT / "r.trace"), "--", *load(pairs)], base)

    def heaptrack(pairs):
        return lambda: (["heaptrack", "-o", str(OUT / "ht"), *load(pairs)], base)

    # the real program: every object a malloc call
    py = ["/usr/bin/python3", str(PYTHON_WORK)]
    py_env = dict(base, PYTHONMALLOC="malloc")

    def python(min_bytes=None, tracer=True):
        def make():
            if not tracer:
                return py, py_env
            env = dict(py_env, LD_PRELOAD=str(LIB), RAMWATCH_TRACE_FILE=str(OUT / "t.trace"),
                       RAMWATCH_TRACE_FORMAT="binary")
            if min_bytes is not None:
                env["RAMWATCH_TRACE_MIN_BYTES"] = min_bytes
            return py, env
        return make

    cases = [("untraced", a.pairs, untraced(a.pairs)),
             ("malloc and free passed through, nothing traced", a.pairs, passthrough(a.pairs)),
             ("tracer, default threshold", a.pairs, traced(a.pairs, None, "binary")),
             ("tracer, --min-bytes 0, binary", a.pairs, traced(a.pairs, "0", "binary")),
             ("trace record --min-bytes 0, with its summary", a.pairs, record(a.pairs))]
    if a.record_only:
        cases = [c for c in cases if c[0] in ("untraced", "tracer, --min-bytes 0, binary",
                                              "trace record --min-bytes 0, with its summary")]
    if shutil.which("heaptrack") and not a.record_only:
        cases.append(("heaptrack", a.pairs, heaptrack(a.pairs)))
    if a.record_only:
        pass
    elif a.pairs_long != a.pairs:
        cases += [("untraced", a.pairs_long, untraced(a.pairs_long)),
                  ("malloc and free passed through, nothing traced", a.pairs_long, passthrough(a.pairs_long)),
                  ("tracer, default threshold", a.pairs_long, traced(a.pairs_long, None, "binary"))]
    if a.pairs_json != a.pairs and not a.record_only:
        cases.append(("untraced", a.pairs_json, untraced(a.pairs_json)))
    if not a.record_only:
        cases.append(("tracer, --min-bytes 0, JSON Lines", a.pairs_json, traced(a.pairs_json, "0", "json")))
    if shutil.which("heaptrack") and a.pairs_json != a.pairs and not a.record_only:
        cases.append(("heaptrack", a.pairs_json, heaptrack(a.pairs_json)))
    if not a.no_python and not a.record_only:
        cases += [("untraced", 0, python(tracer=False)),
                  ("tracer, default threshold", 0, python()),
                  ("tracer, --min-bytes 0, binary", 0, python("0"))]
        if shutil.which("heaptrack"):
            cases.append(("heaptrack", 0, lambda: (["heaptrack", "-o", str(OUT / "ht"), *py], py_env)))
    # Round by round, every case once a round: a machine whose load changes
    # during the bench changes every case's runs alike.
    walls = {(name, pairs): [] for name, pairs, _ in cases}
    cpus = {(name, pairs): [] for name, pairs, _ in cases}
    rss = {(name, pairs): [] for name, pairs, _ in cases}
    for _ in range(a.runs):
        for name, pairs, make in cases:
            clean()
            cmd, env = make()
            w, c, m = measure(cmd, env)
            walls[(name, pairs)].append(w)
            cpus[(name, pairs)].append(c)
            rss[(name, pairs)].append(m)
    clean()
    print("| run | program | wall (median of %d) | x untraced | x untraced, each round | CPU | x untraced "
          "| peak RSS |" % a.runs)
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, pairs, _ in cases:
        w = statistics.median(walls[(name, pairs)])
        u = statistics.median(walls[("untraced", pairs)])
        c = statistics.median(cpus[(name, pairs)])
        uc = statistics.median(cpus[("untraced", pairs)])
        # each round's case against the same round's untraced run: the spread the noise makes
        each = [t / b for t, b in zip(walls[(name, pairs)], walls[("untraced", pairs)])]
        if not pairs:
            program = "CPython, JSON of a 300 000-entry dict"
        elif pairs == a.pairs:
            program = "malloc-heavy (%g M pairs, %d x 256 KiB)" % (pairs / 1_000_000, a.big)
        else:
            program = "%g M pairs, %d x 256 KiB" % (pairs / 1_000_000, a.big)
        print("| %s | %s | %.2f s | %.2f | %.2f-%.2f | %.2f s | %.2f | %d MiB |"
              % (name, program, w, w / u, min(each), max(each), c, c / uc, round(max(rss[(name, pairs)]) / 1024)))

    # the targets, on the load they are set on
    def ratios(name):
        key, base_key = (name, a.pairs), ("untraced", a.pairs)
        return (statistics.median(walls[key]) / statistics.median(walls[base_key]),
                statistics.median(cpus[key]) / statistics.median(cpus[base_key]))
    print()
    for name, target in (("tracer, --min-bytes 0, binary", 10.0), ("tracer, default threshold", 1.1),
                         ("trace record --min-bytes 0, with its summary", 10.0)):
        if (name, a.pairs) not in walls:
            continue
        w, c = ratios(name)
        print("target: %s within %gx the untraced run: %.2fx wall (%s), %.2fx CPU (%s)"
              % (name, target, w, "met" if w <= target else "not met", c, "met" if c <= target else "not met"))


if __name__ == "__main__":
    main()
