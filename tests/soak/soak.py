#!/usr/bin/python3
"""The soak test (make soak): a real ramwatchd watching a churning
population for SOAK_SECONDS (default 240), with clients asking it in
parallel, a SIGHUP now and then, kill -9 and a restart twice, and its disk
filled and freed once.  At the end it checks what a person running it for
a day would check:

  - PRAGMA integrity_check says ok;
  - no row a client saw committed before a kill -9 is missing afterwards;
  - the daemon's resident memory is flat after warm-up, over the last
    instance's life: it grows by at most SOAK_RSS_GROWTH_MAX KiB from the
    first fifth of that window to the last, and over a window of ten
    minutes or more its slope is at most SOAK_RSS_SLOPE_MAX KiB a minute;
  - its descriptors other than the ones per watched process and per
    client connection stay the same number, and those of the change
    watch's BPF program (maps, programs, links, BTF) are either none or
    one program's worth: the daemon turns the watch off when the kernel
    missed changes of several processes, and a restart loads it again,
    never twice;
  - every client command came back as a command does (exit 0, or 1 with
    a message while the daemon was down), never killed by a signal;
  - the daemon wrote again after the disk was freed, and stopped cleanly.

Under SANITIZE=1 (make soak-asan) the daemon runs built with ASan, and its
exit at the end (SIGTERM) runs LeakSanitizer: any report fails the soak.

The population, all real processes:
  - churn: short-lived children of a few MiB (hundreds a minute);
  - growers: Python processes growing by 16 MiB every 200 ms, then exiting;
  - mappers: processes of 5,000 regions each, killed after 50-800 ms, often
    while the daemon reads their smaps.

Needs root (a tmpfs for the state directory, so the disk can be filled).
Writes its figures to $SOAK_OUT (default build/soak/result.json) and prints
them."""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

from rwdaemon import Daemon  # noqa: E402

BUILD = os.environ.get("RAMWATCH_BUILD", os.path.join(HERE, "..", "..", "build"))
RAMWATCH = os.path.join(BUILD, "ramwatch")
HELPERS = os.path.join(BUILD, "helpers")
SECONDS = float(os.environ.get("SOAK_SECONDS", "240"))
RSS_SLOPE_MAX = float(os.environ.get("SOAK_RSS_SLOPE_MAX", "256"))  # KiB a minute, over 10 minutes or more
RSS_GROWTH_MAX = int(os.environ.get("SOAK_RSS_GROWTH_MAX", "4096"))  # KiB, first fifth to last fifth
OUT = os.environ.get("SOAK_OUT", os.path.join(BUILD, "soak", "result.json"))
SANITIZED = os.environ.get("SANITIZE") == "1"
TMPFS_MIB = 512

CONFIG = """\
[Watch]
Watch=all
MinPrivate=0
[Sampling]
SampleInterval=250ms
StoreInterval=1s
DiscoverInterval=250ms
CensusInterval=20s
CensusOnGrowth=32M 5%
CensusMinSpacing=1s
[Store]
Retention=30d
"""


def log(msg):
    print(f"soak: {time.strftime('%H:%M:%S')} {msg}", flush=True)


class Stop:
    """Set when the workload should end."""

    def __init__(self):
        self.event = threading.Event()

    def wait(self, seconds):
        return self.event.wait(seconds)

    @property
    def set(self):
        return self.event.is_set()


# ---------------------------------------------------------------- the population

def churn(stop, counts, binary):
    while not stop.set:
        r = subprocess.run([binary, "200", "4", "4", "500"], capture_output=True, text=True)
        counts["churn"] += 200 if r.returncode == 0 else 0


GROWER = r"""
import time
held = []
for i in range(32):
    held.append(bytearray(16 << 20))
    for j in range(0, len(held[-1]), 4096):
        held[-1][j] = 1
    time.sleep(0.2)
"""


def growers(stop, counts):
    while not stop.set:
        p = subprocess.Popen([sys.executable, "-c", GROWER])
        counts["grower_pid"] = p.pid
        while p.poll() is None and not stop.set:
            time.sleep(0.1)
        if p.poll() is None:
            p.kill()
        p.wait()
        counts["growers"] += 1


def mappers(stop, counts):
    rng = random.Random(7)
    while not stop.set:
        p = subprocess.Popen([os.path.join(HELPERS, "many-maps"), "5000"], stdout=subprocess.PIPE, text=True)
        p.stdout.readline()  # "ready N": every region is mapped
        time.sleep(rng.uniform(0.05, 0.8))
        p.kill()
        p.wait()
        p.stdout.close()
        counts["mappers"] += 1


# ---------------------------------------------------------------- clients

def client(stop, daemon, counts, stats, rng_seed):
    """Asks history, report, processes and SQL in a loop, and marks phases,
    mostly of the grower alive at the time (else of pid 1), and counts how
    each command came back."""
    rng = random.Random(rng_seed)
    while not stop.set:
        kind = rng.choice(["history", "report", "processes", "sql", "status", "mark"])
        if kind == "sql":
            cmd = [RAMWATCH, "sql", "--db", daemon.db_path,
                   "SELECT count(*) AS n FROM samples WHERE time > (SELECT max(time) FROM samples) - 60000"]
        elif kind in ("processes", "status"):
            cmd = [RAMWATCH, kind, "--socket", daemon.socket]
        else:
            pid = str(counts.get("grower_pid", 1)) if rng.random() < 0.8 else "1"
            cmd = [RAMWATCH, kind, "--pid", pid, "--socket", daemon.socket]
            if kind == "mark":
                cmd.append(f"phase-{rng.randrange(1000)}")
            if kind == "history":
                cmd += ["--since", "5min", "--format", "json"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            stats["timeouts"] += 1
            continue
        if r.returncode < 0:
            stats["signalled"].append(f"{' '.join(cmd)}: signal {-r.returncode}")
        elif r.returncode == 0:
            stats["ok"][kind] = stats["ok"].get(kind, 0) + 1
        elif r.returncode == 1 and r.stderr.strip():
            stats["refused"] += 1  # the daemon is down, or the process is not watched: said so
        else:
            stats["odd"].append(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[:200]}")
        time.sleep(rng.uniform(0.05, 0.3))


def committed(daemon):
    """What a client sees committed now, read through ramwatch sql: the
    censuses' ids, the count of sample rows up to a time, the marks."""
    q = ("SELECT (SELECT max(time) FROM samples) AS upto,"
         " (SELECT group_concat(id) FROM censuses) AS censuses,"
         " (SELECT count(*) FROM marks) AS marks")
    r = subprocess.run([RAMWATCH, "sql", "--db", daemon.db_path, "--format", "json", q],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)[0]
    upto = row["upto"] or 0
    r = subprocess.run([RAMWATCH, "sql", "--db", daemon.db_path, "--format", "json",
                        f"SELECT count(*) AS n FROM samples WHERE time <= {upto}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ids = set(int(x) for x in (row["censuses"] or "").split(",") if x)
    return {"upto": upto, "samples": json.loads(r.stdout)[0]["n"], "censuses": ids, "marks": row["marks"]}


def still_there(daemon, before):
    con = daemon.db()
    try:
        n = con.execute("SELECT count(*) FROM samples WHERE time <= ?", (before["upto"],)).fetchone()[0]
        ids = set(r[0] for r in con.execute("SELECT id FROM censuses"))
        marks = con.execute("SELECT count(*) FROM marks").fetchone()[0]
    finally:
        con.close()
    missing = before["censuses"] - ids
    problems = []
    if n < before["samples"]:
        problems.append(f"{before['samples'] - n} sample rows up to {before['upto']} missing")
    if missing:
        problems.append(f"{len(missing)} censuses missing (e.g. {sorted(missing)[:5]})")
    if marks < before["marks"]:
        problems.append(f"{before['marks'] - marks} marks missing")
    return problems


# ---------------------------------------------------------------- the daemon's own figures

def daemon_figures(pid):
    """(resident KiB, descriptors in all, descriptors other than pidfds,
    /proc directories, sockets and the change watch's, the change watch's)."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    total = stable = bpf = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        total += 1
        if target.startswith(("anon_inode:bpf", "anon_inode:btf")):
            bpf += 1
        elif not target.startswith(("socket:", "anon_inode:[pidfd]", "/proc/")):
            stable += 1
    return rss, total, stable, bpf


def slope(points):
    """Least-squares slope of (t, v) points, per minute."""
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    den = sum((t - mt) ** 2 for t, _ in points)
    return 0.0 if den == 0 else 60 * sum((t - mt) * (v - mv) for t, v in points) / den


def main():
    if os.geteuid() != 0:
        print("soak: needs root (a tmpfs for the state directory, to fill the disk)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="ramwatch-soak-")
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MIB}M,mode=0755", "tmpfs", state], check=True)
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=23"} if SANITIZED else {}
    daemon = Daemon(tmp, CONFIG, env=env)
    stop = Stop()
    counts = {"churn": 0, "growers": 0, "mappers": 0}
    stats = {"ok": {}, "refused": 0, "timeouts": 0, "signalled": [], "odd": []}
    failures = []
    figures = []   # (t, rss, fds, stable fds, change watch fds) of the current instance
    instances = []
    missed = []
    kills = []
    started = time.monotonic()

    def elapsed():
        return time.monotonic() - started

    try:
        daemon.start()
        instance_started = elapsed()
        # churn under a name of its own: a test watching "churn" beside a
        # soak must not see the soak's children
        churn_bin = os.path.join(tmp, "soak-churn")
        shutil.copy(os.path.join(HELPERS, "churn"), churn_bin)
        threads = [threading.Thread(target=churn, args=(stop, counts, churn_bin), daemon=True)]
        threads += [threading.Thread(target=f, args=(stop, counts), daemon=True) for f in (growers, mappers)]
        threads += [threading.Thread(target=client, args=(stop, daemon, counts, stats, i), daemon=True) for i in range(3)]
        for t in threads:
            t.start()
        plan = sorted([(0.25, "kill"), (0.45, "kill"), (0.60, "fill"), (0.70, "free")]
                      + [(x / 100, "hup") for x in range(10, 100, 12)])
        filler = os.path.join(state, "filler")
        freed_at = None
        next_sample = 0
        for at, what in plan + [(1.0, "end")]:
            while elapsed() < at * SECONDS:
                if elapsed() >= next_sample:
                    try:
                        figures.append((elapsed() - instance_started, *daemon_figures(daemon.pid)))
                    except (OSError, StopIteration):
                        pass
                    next_sample = elapsed() + 2
                if not daemon.alive():
                    failures.append(f"ramwatchd exited by itself ({daemon.proc.returncode}) at {elapsed():.0f} s")
                    raise RuntimeError("ramwatchd died")
                time.sleep(0.2)
            if what == "hup":
                daemon.kill(signal.SIGHUP)
                log("SIGHUP")
            elif what == "kill":
                before = committed(daemon)
                daemon.kill(signal.SIGKILL)
                daemon.proc.wait()
                daemon.stop()
                instances.append({"seconds": elapsed() - instance_started, "figures": figures})
                figures = []
                daemon.start()
                instance_started = elapsed()
                problems = still_there(daemon, before)
                kills.append({"at": round(elapsed()), "samples_before": before["samples"],
                              "censuses_before": len(before["censuses"]), "missing": problems})
                failures += [f"after the kill -9 at {elapsed():.0f} s: {p}" for p in problems]
                log(f"kill -9 and restart: {before['samples']} sample rows, {len(before['censuses'])} censuses"
                    f" committed before, {'none' if not problems else problems} missing")
            elif what == "fill":
                with open(filler, "wb") as f:
                    try:
                        while True:
                            f.write(b"\0" * (1 << 20))
                            f.flush()
                    except OSError:
                        pass
                log("disk full")
            elif what == "free":
                os.unlink(filler)
                freed_at = time.time()
                log("disk freed")
        stop.event.set()
        for t in threads:
            t.join(timeout=120)
        # written again after the disk was freed
        if freed_at is not None:
            rows = daemon.query("SELECT count(*) AS n FROM samples WHERE time > ?", int(freed_at * 1000) + 2000)
            if rows[0]["n"] == 0:
                failures.append("no sample row was written after the disk was freed")
        instances.append({"seconds": elapsed() - instance_started, "figures": figures})
        rc = daemon.stop(timeout=60)
        if rc != 0:
            failures.append(f"ramwatchd exited {rc} on SIGTERM")
        logs = daemon.logs()
        # what the change watch's self-check found, for the record: a
        # process it missed is read every round, several turn it off
        missed.extend(line for line in logs.splitlines() if "change events did not say so" in line)
        if "LeakSanitizer" in logs or "AddressSanitizer" in logs or "runtime error:" in logs:
            failures.append("the sanitizers reported:\n" + logs[logs.find("=="):][:4000])
        con = daemon.db()
        try:
            check = con.execute("PRAGMA integrity_check").fetchone()[0]
            totals = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                      for t in ("processes", "samples", "censuses", "marks", "region_events")}
        finally:
            con.close()
        if check != "ok":
            failures.append(f"integrity_check: {check}")
    finally:
        stop.event.set()
        if daemon.proc and daemon.alive():
            daemon.stop()
        subprocess.run(["umount", "-l", state])

    # the last instance lived longest: its memory and descriptors after warm-up
    last = instances[-1]["figures"]
    warm = [f for f in last if f[0] >= max(30.0, 0.3 * instances[-1]["seconds"])]
    rss_slope = slope([(t, rss) for t, rss, _, _, _ in warm])
    stable_fds = sorted(set(s for _, _, _, s, _ in warm))
    bpf_fds = sorted(set(b for _, _, _, _, b in warm))
    # flat: over a long window the slope says it; over the few minutes of a
    # short soak, a slope is mostly noise (SQLite's page cache filling), so
    # there the growth from the first fifth of the window to the last is
    # bounded instead
    window_s = (warm[-1][0] - warm[0][0]) if len(warm) > 1 else 0
    fifth = max(1, len(warm) // 5)
    growth = (max(f[1] for f in warm[-fifth:]) - max(f[1] for f in warm[:fifth])) if warm else 0
    if window_s >= 600 and rss_slope > RSS_SLOPE_MAX:
        failures.append(f"resident memory grew {rss_slope:.0f} KiB a minute after warm-up (at most {RSS_SLOPE_MAX:.0f})")
    if growth > RSS_GROWTH_MAX:
        failures.append(f"resident memory grew {growth} KiB after warm-up (at most {RSS_GROWTH_MAX})")
    if stable_fds and stable_fds[-1] - stable_fds[0] > 2:
        failures.append(f"descriptors other than per process and per client went from {stable_fds[0]}"
                        f" to {stable_fds[-1]}")
    if len([b for b in bpf_fds if b > 0]) > 1:
        failures.append(f"the change watch's descriptors took the counts {bpf_fds}: more than one program's worth")
    if stats["signalled"]:
        failures.append(f"client commands killed by a signal: {stats['signalled'][:5]}")
    if stats["odd"]:
        failures.append(f"client commands that failed without a message: {stats['odd'][:5]}")
    for kind in ("history", "report", "processes", "sql", "status", "mark"):
        if stats["ok"].get(kind, 0) == 0:
            failures.append(f"no {kind} command ever succeeded")
    result = {
        "seconds": round(SECONDS),
        "sanitized": SANITIZED,
        "population": {k: v for k, v in counts.items() if k != "grower_pid"},
        "clients": {"ok": stats["ok"], "refused": stats["refused"], "timeouts": stats["timeouts"]},
        "kills": kills,
        "rows": totals,
        "integrity_check": check,
        "rss_kib": {"first": warm[0][1] if warm else None, "last": warm[-1][1] if warm else None,
                    "max": max((f[1] for f in last), default=None), "slope_kib_per_min": round(rss_slope, 1),
                    "growth_kib": growth, "window_s": round(window_s)},
        "fds": {"min": min((f[2] for f in warm), default=None), "max": max((f[2] for f in warm), default=None),
                "stable": stable_fds, "change_watch": bpf_fds},
        "change_watch_missed": missed,
        "failures": failures,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, default=list)
    print(json.dumps(result, indent=1, default=list))
    for failure in failures:
        print(f"soak: FAILED: {failure}", file=sys.stderr)
    print(f"soak: figures in {OUT}")
    print("0 passed, 1 failed" if failures else "1 passed, 0 failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
