#!/usr/bin/python3
"""What evidence costs: a census with it beside the same census without it.

For each program of the evidence tests (C with glibc, jemalloc, mimalloc and
tcmalloc; CPython; numpy; Node; a JVM; redis filled by DEBUG POPULATE) and
for the 20,000-mapping process (bench/many-maps):

  - in a long-lived process, as ramwatchd takes them: bench/evidence-loop
    takes censuses with and without evidence alternately and reports the
    medians of each census's CPU time (the thread's, first read to last);
  - one-shot, as a person runs `ramwatch scan`: in interleaved rounds, in a
    shuffled order each round,
        ramwatch scan PID --json --no-gpu                 with evidence (the default)
        ramwatch scan PID --json --no-gpu --no-evidence   shapes alone
    the medians of the census's own CPU time (cost.cpu_us) and of the whole
    command's (user + system, from the kernel's accounting of the children).

and the ratios of the two.

    make bench-evidence      # or: RAMWATCH_BUILD=build bench/evidence-bench.py [--rounds N] [--only NAME]
"""
import argparse
import json
import os
import platform
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
RAMWATCH = os.path.join(BUILD, "ramwatch")
HELPERS = os.path.join(BUILD, "helpers")


def ready_line(p, what):
    line = p.stdout.readline()
    if not line:
        raise SystemExit(f"{what} exited before it was ready")
    return line


def start_helper(name, *args):
    p = subprocess.Popen([os.path.join(HELPERS, name), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    line = ready_line(p, name)
    pid = json.loads(line)["pid"] if line.startswith("{") else p.pid
    return p, pid


def start_python(code):
    p = subprocess.Popen(["/usr/bin/python3", "-c", textwrap.dedent(code)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    ready_line(p, "python3")
    return p, p.pid


def start_node():
    code = """
        globalThis.keep = [];
        for (let i = 0; i < 90; i++) globalThis.keep.push(Buffer.alloc(1 << 20, i));
        const objs = []; for (let i = 0; i < 300000; i++) objs.push({ i, s: 'x' + i }); globalThis.objs = objs;
        console.log("ready");
        process.stdin.resume();
    """
    p = subprocess.Popen(["node", "-e", textwrap.dedent(code)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    ready_line(p, "node")
    return p, p.pid


def start_java(tmp):
    src = os.path.join(tmp, "Hold.java")
    with open(src, "w") as f:
        f.write(textwrap.dedent("""
            public class Hold {
                public static void main(String[] a) throws Exception {
                    byte[][] keep = new byte[100][];
                    for (int i = 0; i < keep.length; i++) { keep[i] = new byte[1 << 20]; java.util.Arrays.fill(keep[i], (byte) 1); }
                    System.out.println("ready");
                    System.in.read();
                    System.out.println(keep.length);
                }
            }
        """))
    p = subprocess.Popen(["java", "-Xmx256m", "-XX:+UseSerialGC", src], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    ready_line(p, "java")
    return p, p.pid


def start_redis(tmp):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                          "no", "--dir", tmp, "--enable-debug-command", "yes"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL)
    cli = ["redis-cli", "-p", str(port)]
    for _ in range(200):
        if subprocess.run(cli + ["ping"], capture_output=True, text=True).stdout.strip() == "PONG":
            break
        time.sleep(0.05)
    subprocess.run(cli + ["DEBUG", "POPULATE", "200000", "key", "200"], check=True, capture_output=True)
    return p, p.pid


PROGRAMS = {
    "c-glibc": lambda tmp: start_helper("allocs"),
    "c-jemalloc": lambda tmp: start_helper("allocs-jemalloc"),
    "c-mimalloc": lambda tmp: start_helper("allocs-mimalloc"),
    "c-tcmalloc": lambda tmp: start_helper("allocs-tcmalloc"),
    "cpython": lambda tmp: start_python("""
        import sys
        big = bytearray(80 << 20)
        for i in range(0, len(big), 4096): big[i] = 1
        blobs = [bytes([i]) * (2 << 20) for i in range(20)]
        small = [str(i) * 3 for i in range(300000)]
        print("ready", flush=True)
        sys.stdin.read()
    """),
    "numpy": lambda tmp: start_python("""
        import sys
        import numpy as np
        arrays = [np.ones(n, dtype=np.uint8) for n in (8 << 20, 100 << 20, 1 << 20)]
        print("ready", flush=True)
        sys.stdin.read()
    """),
    "node": lambda tmp: start_node(),
    "jvm": start_java,
    "redis": start_redis,
    "many-maps-20000": lambda tmp: start_helper("many-maps", "20000"),
}


def one(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cost = json.loads(out)["cost"]
    return cost["cpu_us"], ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e6, \
        cost.get("evidence_reads") or 0


def measure(pid, rounds):
    cmds = {
        "evidence": [RAMWATCH, "scan", str(pid), "--json", "--no-gpu"],
        "shapes": [RAMWATCH, "scan", str(pid), "--json", "--no-gpu", "--no-evidence"],
    }
    samples = {name: ([], [], []) for name in cmds}
    for cmd in cmds.values():
        one(cmd)
    for _ in range(rounds):
        order = list(cmds)
        random.shuffle(order)
        for name in order:
            for k, v in zip(samples[name], one(cmds[name])):
                k.append(v)
    return {name: tuple(statistics.median(x) for x in s) for name, s in samples.items()}


def other_share(pid, *extra):
    """The share of private memory left in other, with the census's options."""
    c = json.loads(subprocess.run([RAMWATCH, "scan", str(pid), "--json", "--no-gpu", *extra], capture_output=True,
                                  text=True, check=True).stdout)
    other = next((k["private"] for k in c["classes"] if k["key"] == "other"), 0)
    return 100.0 * other / c["totals"]["private"] if c["totals"]["private"] else 0.0


def regions(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for _ in f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--only", action="append", help="a program to measure (repeatable)")
    args = ap.parse_args()

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
          f"{args.rounds} rounds", file=sys.stderr)
    print("| program | regions | other, shapes | other, evidence | reads | daemon: evidence | daemon: shapes | ratio "
          "| scan: evidence | scan: shapes | ratio | command: evidence | command: shapes | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, start in PROGRAMS.items():
            if args.only and name not in args.only:
                continue
            if name in ("node", "jvm", "redis") and not shutil.which({"node": "node", "jvm": "java",
                                                                       "redis": "redis-server"}[name]):
                print(f"| {name} | not installed | | | | | | | | | | | | |")
                continue
            proc, pid = start(tmp)
            try:
                time.sleep(1.0)  # let a runtime's start-up settle
                loop = subprocess.run([os.path.join(BUILD, "bench", "evidence-loop"), str(pid), str(args.rounds)],
                                      capture_output=True, text=True, check=True).stdout.split()
                le, ls = int(loop[3]), int(loop[5])
                m = measure(pid, args.rounds)
                e, s = m["evidence"], m["shapes"]
                ratio = le / ls
                worst = max(worst, ratio)
                shares = f"{other_share(pid, '--no-evidence'):.1f} % | {other_share(pid):.1f} %"
                print(f"| {name} | {regions(pid)} | {shares} | {e[2]:.0f} | {le / 1000:.2f} ms | {ls / 1000:.2f} ms | {ratio:.3f} | "
                      f"{e[0] / 1000:.2f} ms | {s[0] / 1000:.2f} ms | {e[0] / s[0]:.3f} | "
                      f"{e[1] / 1000:.2f} ms | {s[1] / 1000:.2f} ms | {e[1] / s[1]:.3f} |", flush=True)
            finally:
                proc.kill()
                proc.wait()
    print(f"worst ratio in a long-lived process: {worst:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
