#!/usr/bin/python3
"""Benchmark of ramwatch trace summary (make bench-trace).

Two kinds of trace, written by bench/trace-gen in $RAMWATCH_BUILD/bench-trace:

1. The allocation tracer's own form: `trace-gen --binary` writes the binary
   file `ramwatch trace record --format binary` writes for a program of four
   threads (45 % allocations, 40 % frees, 15 % resizes, a fifth of them
   moving the block; at most 50 000 blocks live, 320 scopes, 400 sites), and
   `ramwatch trace export` turns it into the JSON Lines `--format json`
   writes: the same events, about 150 bytes each.  Each round runs, side by
   side,

       wc -l FILE.jsonl                     the floor: reading the file
       ramwatch trace summary FILE.jsonl    the JSON Lines replay
       ramwatch trace summary FILE.bin      the binary replay

   and the ratios are taken within the round.  Targets: the JSON Lines
   replay within 10x of wc -l, the binary replay at least 5x faster than
   the JSON Lines one, both summaries the same byte for byte, and peak
   memory for the largest trace within 10 % of that for the smallest.

2. trace-gen's JSON Lines of 1 M and 20 M events (scopes also named by
   path, frees with their lengths), replayed beside `jq -c .` (a general
   JSON reader) and wc -l.  Targets: at least 3 M events/s, and peak memory
   for 20 M events within 10 % of that for 1 M.

Each file is read once before its runs (it is in the page cache, as when it
was just written).  Wall time is the median of the runs, CPU time (user and
system) beside it for the tracer's form, since on a shared machine the wall
time of a short run is mostly how long it waited for a CPU; peak resident
memory is ru_maxrss from wait4(), through bench/trace-rss.  bench/trace-parts then
shows where the time of a replay goes, per event, and bench/page-populate what
a new page of memory costs on the machine, faulted or populated.

    RAMWATCH_BUILD=build /usr/bin/python3 bench/trace-bench.py [--runs N] [--tracer-events N,N]
        [--events N,N] [--jq-runs N]
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
PARTS = BUILD / "bench" / "trace-parts"
POPULATE = BUILD / "bench" / "page-populate"
OUT = BUILD / "bench-trace"


def measure(cmd):
    """Runs cmd with its output discarded; returns (wall seconds, peak RSS in KiB, CPU seconds),
    measured by trace-rss (a small launcher: see trace-rss.c for why not from here)."""
    out = subprocess.run([str(RSS), *map(str, cmd)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: {out.stderr.strip()}")
    wall, rss, cpu = out.stdout.split()
    return float(wall), int(rss), float(cpu)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def warm(path):
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)


def tracer_traces(events):
    """The binary trace of that many events and its JSON Lines export."""
    binary = OUT / f"tracer-{events}.bin"
    jsonl = OUT / f"tracer-{events}.jsonl"
    if not binary.exists() or binary.stat().st_size == 0:
        print(f"generating {binary} ...", file=sys.stderr)
        subprocess.run([str(GEN), "--binary", str(events), str(binary)], check=True)
    if not jsonl.exists() or jsonl.stat().st_size == 0:
        print(f"exporting {jsonl} ...", file=sys.stderr)
        subprocess.run([str(RAMWATCH), "trace", "export", str(binary), "-o", str(jsonl)], check=True)
    return binary, jsonl


def same_summary(binary, jsonl):
    """Whether both forms give the same summary, byte for byte."""
    outs = [subprocess.run([str(RAMWATCH), "trace", "summary", str(p)], capture_output=True, check=True).stdout
            for p in (binary, jsonl)]
    return outs[0] == outs[1]


def tracer_form(sizes, runs):
    results = {}
    for events in sizes:
        binary, jsonl = tracer_traces(events)
        warm(jsonl)
        warm(binary)
        rounds = []
        for _ in range(runs):
            wc = measure(["wc", "-l", jsonl])
            js = measure([RAMWATCH, "trace", "summary", jsonl])
            bi = measure([RAMWATCH, "trace", "summary", binary])
            rounds.append((wc, js, bi))
            print(f"{events} events  wc {wc[0]:.3f} s  jsonl {js[0]:.3f} s  binary {bi[0]:.3f} s  "
                  f"({js[0] / wc[0]:.1f}x wc, binary {js[0] / bi[0]:.1f}x faster)", file=sys.stderr)
        results[events] = {
            "rounds": rounds,
            "jsonl_size": jsonl.stat().st_size,
            "binary_size": binary.stat().st_size,
            "same": same_summary(binary, jsonl),
        }
    return results


def ratios(rounds, a, b, field):
    """Per round: the time of tool a over that of tool b (field 0 wall, 2 CPU)."""
    return [x[a][field] / x[b][field] for x in rounds]


def span(values):
    return f"{statistics.median(values):.1f}x ({min(values):.1f}-{max(values):.1f})"


def print_tracer_form(sizes, results, runs):
    print(f"Machine: {cpu_model()}, {os.cpu_count()} CPUs, Linux {platform.release()}; "
          f"{runs} rounds, each running the three side by side; files in the page cache.")
    print()
    print("| trace | tool | wall time | CPU time | events/s (wall) | peak RSS | wall / wc -l | CPU / wc -l |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for events in sizes:
        r = results[events]
        rounds = r["rounds"]
        jmib, bmib = r["jsonl_size"] / 2**20, r["binary_size"] / 2**20
        for i, (name, size) in enumerate((("wc -l FILE.jsonl", jmib), ("ramwatch trace summary FILE.jsonl", jmib),
                                          ("ramwatch trace summary FILE.bin", bmib))):
            wall = statistics.median(x[i][0] for x in rounds)
            cpu = statistics.median(x[i][2] for x in rounds)
            rss = max(x[i][1] for x in rounds)
            print(f"| {events / 1e6:g} M events ({size:,.1f} MiB) | `{name}` | {wall:.3f} s | {cpu:.3f} s | "
                  f"{events / wall / 1e6:.1f} M | {rss / 1024:.1f} MiB | {span(ratios(rounds, i, 0, 0))} | "
                  f"{span(ratios(rounds, i, 0, 2))} |")
    print()
    print("(medians of the rounds' ratios, their range in brackets)")
    print()
    for events in sizes:
        rounds = results[events]["rounds"]
        m_wc = statistics.median(ratios(rounds, 1, 0, 0))
        m_bin = statistics.median(ratios(rounds, 1, 2, 0))
        print(f"- {events / 1e6:g} M events: the JSON Lines replay takes {span(ratios(rounds, 1, 0, 0))} the wall "
              f"time of wc -l, {span(ratios(rounds, 1, 0, 2))} its CPU time (target: at most 10x): "
              f"{'met' if m_wc <= 10 else 'NOT met'}; the binary replay is {span(ratios(rounds, 1, 2, 0))} faster "
              f"in wall time, {span(ratios(rounds, 1, 2, 2))} in CPU time (target: at least 5x): "
              f"{'met' if m_bin >= 5 else 'NOT met'}; the two summaries are "
              f"{'the same' if results[events]['same'] else 'NOT the same'}.")
    if len(sizes) >= 2:
        for i, form in ((1, "JSON Lines"), (2, "binary")):
            small = max(x[i][1] for x in results[sizes[0]]["rounds"])
            large = max(x[i][1] for x in results[sizes[-1]]["rounds"])
            print(f"- Peak memory of the {form} replay, {sizes[-1] / 1e6:g} M vs {sizes[0] / 1e6:g} M events: "
                  f"{large / 1024:.1f} MiB vs {small / 1024:.1f} MiB ({(large - small) / small * 100:+.1f} %; "
                  f"target: within 10 %): {'met' if abs(large - small) <= 0.1 * small else 'NOT met'}.")


def parts(sizes):
    """Where the time of each form's replay goes, per event (trace-parts)."""
    binary, jsonl = tracer_traces(sizes[0])
    print()
    print(f"Where the time goes, {sizes[0] / 1e6:g} M events (`bench/trace-parts`, ns an event, median of 5):")
    print()
    print("| form | read() the file | split into lines / frames | parse or decode | whole replay in memory "
          "| the analyzer (replay - parse) | whole replay from the file |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, path in (("JSON Lines", jsonl), ("binary", binary)):
        out = subprocess.run([str(PARTS), str(path), "5"], capture_output=True, text=True, check=True).stdout
        v = dict(zip(out.split()[0::2], out.split()[1::2]))
        f = {k: float(x) for k, x in v.items()}
        print(f"| {name} | {f['read']:.1f} | {f['split']:.1f} | {f['parse']:.1f} | {f['replay_memory']:.1f} | "
              f"{f['replay_memory'] - f['parse']:.1f} | {f['replay_file']:.1f} |")


def generator_form(sizes, runs, jq_runs):
    results = {}
    for events in sizes:
        path = OUT / f"trace-{events}.jsonl"
        if not path.exists() or path.stat().st_size == 0:
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([str(GEN), str(events), str(path)], check=True)
        warm(path)
        tools = {
            "ramwatch trace summary": ([str(RAMWATCH), "trace", "summary", str(path)], runs),
            "jq -c .": (["jq", "-c", ".", str(path)], jq_runs),
            "wc -l": (["wc", "-l", str(path)], runs),
        }
        for name, (cmd, n) in tools.items():
            if n == 0:
                continue
            samples = [measure(cmd) for _ in range(n)]
            wall = statistics.median(s[0] for s in samples)
            rss = max(s[1] for s in samples)
            results[(events, name)] = (wall, rss)
            print(f"{events} events  {name:24} {wall:8.3f} s  {events / wall / 1e6:7.2f} M events/s  "
                  f"{rss / 1024:7.1f} MiB", file=sys.stderr)
        results[(events, "size")] = path.stat().st_size
    return results


def print_generator_form(sizes, results):
    print()
    print("trace-gen's JSON Lines:")
    print()
    print("| trace | tool | wall time | events/s | peak RSS | time / wc -l |")
    print("|---|---|---:|---:|---:|---:|")
    for events in sizes:
        wc_wall = results[(events, "wc -l")][0]
        size = results[(events, "size")] / 2**20
        for name in ("ramwatch trace summary", "jq -c .", "wc -l"):
            if (events, name) not in results:
                continue
            wall, rss = results[(events, name)]
            print(f"| {events / 1e6:g} M events ({size:,.0f} MiB) | `{name}` | {wall:.2f} s | "
                  f"{events / wall / 1e6:.2f} M | {rss / 1024:.1f} MiB | {wall / wc_wall:.1f}x |")
    print()
    for events in sizes:
        rw = results[(events, "ramwatch trace summary")][0]
        jq = f"ramwatch replays {results[(events, 'jq -c .')][0] / rw:.0f}x faster than jq parses; " \
            if (events, "jq -c .") in results else ""
        print(f"- {events / 1e6:g} M events: {jq}{events / rw / 1e6:.2f} M events/s (target: at least 3 M): "
              f"{'met' if events / rw >= 3e6 else 'NOT met'}.")
    if len(sizes) >= 2:
        small = results[(sizes[0], "ramwatch trace summary")][1]
        large = results[(sizes[-1], "ramwatch trace summary")][1]
        print(f"- Peak memory, {sizes[-1] / 1e6:g} M vs {sizes[0] / 1e6:g} M events: {large / 1024:.1f} MiB vs "
              f"{small / 1024:.1f} MiB ({(large - small) / small * 100:+.1f} %; target: within 10 %): "
              f"{'met' if abs(large - small) <= 0.1 * small else 'NOT met'}.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="rounds of the tracer's form, runs of the others (default 7)")
    ap.add_argument("--tracer-events", default="1000000,4000000", help="sizes of the tracer's traces in events")
    ap.add_argument("--events", default="1000000,20000000", help="sizes of trace-gen's JSON Lines in events "
                    "('' for none)")
    ap.add_argument("--jq-runs", type=int, default=1, help="runs of jq per trace (it is slow; default 1)")
    args = ap.parse_args()

    for tool in (RAMWATCH, GEN, RSS, PARTS, POPULATE):
        if not tool.exists():
            sys.exit(f"{tool} is missing: run make bench-trace")
    OUT.mkdir(parents=True, exist_ok=True)
    tracer_sizes = [int(n) for n in args.tracer_events.split(",")]
    sizes = [int(n) for n in args.events.split(",") if n]

    tracer = tracer_form(tracer_sizes, args.runs)
    generated = generator_form(sizes, args.runs, args.jq_runs) if sizes else None
    print_tracer_form(tracer_sizes, tracer, args.runs)
    parts(tracer_sizes)
    # what a new page costs here: the replay's new memory is populated
    print()
    out = subprocess.run([str(POPULATE), "8", "9"], capture_output=True, text=True)
    # a kernel before 5.14 has no MADV_POPULATE_WRITE: said, not fatal
    print("New memory on this machine (`bench/page-populate 8 9`): " +
          (out.stdout.strip() if out.returncode == 0 else out.stderr.strip()))
    if generated:
        print_generator_form(sizes, generated)


if __name__ == "__main__":
    main()
