#!/usr/bin/python3
"""What a slow start of NVML costs a one-shot census, side by side.

On a host whose NVML takes a while to start (nvmlInit_v2: often tens of
milliseconds), a census of bench/many-maps with the stand-in NVML of the
tests (tests/gpu-standin) told to take DELAY ms in nvmlInit_v2, beside
`cat /proc/PID/smaps` (the floor) and the same census with --no-gpu, for
each build given; interleaved rounds in a shuffled order, medians of wall
time and the median of each round's ratio to cat.

    RAMWATCH_BUILD=build bench/gpu-start-bench.py [--delay-ms 50] [--rounds 40] [NAME=BUILD_DIR ...]

(with no NAME=BUILD_DIR, the build of $RAMWATCH_BUILD alone, as "new";
the stand-in and many-maps are taken from $RAMWATCH_BUILD)
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("RAMWATCH_BUILD", "build")
DEVICE = "device GPU-11111111-2222-3333-4444-555555555555 85899345920 4294967296 NVIDIA A100-SXM4-80GB\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--mappings", type=int, default=20000)
    parser.add_argument("builds", nargs="*", help="NAME=BUILD_DIR")
    args = parser.parse_args()
    builds = dict(b.split("=", 1) for b in args.builds) or {"new": BUILD}
    random.seed(1)

    standin = os.path.abspath(os.path.join(BUILD, "gpu-standin"))
    with tempfile.NamedTemporaryFile("w", suffix=".script", delete=False) as f:
        f.write(DEVICE + f"init-delay {args.delay_ms}\n")
        script = f.name
    env = dict(os.environ, RAMWATCH_NVML_LIBRARY=os.path.join(standin, "libnvidia-ml.so.1"),
               RAMWATCH_CUDA_LIBRARY=os.path.join(standin, "libcuda.so.1"), RAMWATCH_STANDIN_SCRIPT=script)
    large = subprocess.Popen([os.path.join(BUILD, "helpers", "many-maps"), str(args.mappings)],
                             stdout=subprocess.PIPE, text=True)
    try:
        large.stdout.readline()
        pid = str(large.pid)
        cmds = {"cat": ["cat", f"/proc/{pid}/smaps"]}
        for name, path in builds.items():
            cmds[name] = [os.path.join(path, "ramwatch"), "scan", pid, "--json"]
            cmds[f"{name} --no-gpu"] = cmds[name] + ["--no-gpu"]
        times = {k: [] for k in cmds}
        for k, cmd in cmds.items():  # warm up
            subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env, check=True)
        for _ in range(args.rounds):
            order = list(cmds)
            random.shuffle(order)
            for k in order:
                t0 = time.perf_counter()
                subprocess.run(cmds[k], stdout=subprocess.DEVNULL, env=env, check=True)
                times[k].append(time.perf_counter() - t0)
    finally:
        large.kill()
        large.wait()
        os.unlink(script)

    print(f"nvmlInit_v2 takes {args.delay_ms} ms more; {args.rounds} interleaved rounds, medians\n")
    print("| command | wall | wall / cat (median of the rounds) |")
    print("|---|---:|---:|")
    for k, v in times.items():
        ratio = statistics.median(a / b for a, b in zip(v, times["cat"]))
        print(f"| {k} | {statistics.median(v) * 1e3:.2f} ms | {ratio:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
