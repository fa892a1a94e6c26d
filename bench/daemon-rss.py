#!/usr/bin/python3
"""ramwatchd's resident memory over its first seconds watching N idle
processes (bench/idle-target, 4 MiB and two threads each): every half
second VmRSS, VmHWM and the rows waiting in its queue (ramwatch status),
then its smaps_rollup; the peak and when it came.

    bench/daemon-rss.py BUILD N SECONDS ['[Sampling]\\nStoreInterval=1m']
"""
import json, os, subprocess, sys, tempfile, time, resource, shutil
BUILD = sys.argv[1]; N = int(sys.argv[2]); SECONDS = int(sys.argv[3]); extra = sys.argv[4] if len(sys.argv) > 4 else ""
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE); resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
r, w = os.pipe()
rr, rw = os.pipe()
binary = os.path.join(BUILD, "bench", "idle-target")
procs = [subprocess.Popen([binary, "4", "2"], stdin=r, stdout=rw) for _ in range(N)]
os.close(rw)
with os.fdopen(rr) as ready:
    for _ in range(N):
        ready.readline()
work = tempfile.mkdtemp(prefix="rss-curve-")
conf = os.path.join(work, "c.conf")
open(conf, "w").write("[Watch]\nWatch=name:idle-target\nMinPrivate=0\n" + extra.replace("\\n", "\n"))
sock = os.path.join(work, "s.sock")
d = subprocess.Popen([os.path.join(BUILD, "ramwatchd"), "--foreground", "--config", conf, "--state-dir",
                      os.path.join(work, "state"), "--socket", sock, "--log-level", "warning"], stderr=subprocess.DEVNULL)
t0 = time.monotonic(); peak = (0, 0, None)
try:
    while time.monotonic() - t0 < SECONDS:
        time.sleep(0.5)
        rss = hwm = 0
        for line in open(f"/proc/{d.pid}/status"):
            if line.startswith("VmRSS:"): rss = int(line.split()[1])
            if line.startswith("VmHWM:"): hwm = int(line.split()[1])
        st = subprocess.run([os.path.join(BUILD, "ramwatch"), "status", "--format", "json", "--socket", sock],
                            capture_output=True, text=True).stdout
        try:
            js = json.loads(st); q = js.get("database", {}).get("queued_rows"); wat = js.get("watched")
        except Exception:
            q = wat = None
        t = time.monotonic() - t0
        print(f"{t:6.1f} s rss {rss/1024:6.1f} MiB hwm {hwm/1024:6.1f} MiB queued {q} watched {wat}", flush=True)
        if rss > peak[1]: peak = (t, rss, q)
    smaps = open(f"/proc/{d.pid}/smaps_rollup").read()
    print(smaps)
finally:
    d.terminate(); d.wait()
    os.close(w); os.close(r)
    for p in procs: p.wait()
    shutil.rmtree(work)
print("peak", peak)
