"""Shared fixtures for the integration tests: the built binaries, processes
with known memory shapes, an unprivileged user."""
import json
import os
import pwd
import signal
import subprocess
import time

import pytest

BUILD = os.environ.get("RAMWATCH_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
RAMWATCH = os.path.join(BUILD, "ramwatch")
HELPERS = os.path.join(BUILD, "helpers")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
MiB = 1024 * 1024


def asan_runtime(binary=RAMWATCH):
    """The path of the ASan runtime a binary built with ASan (make
    check-sanitizers) loads, or None for a plain build.  A test that
    preloads a library into such a binary preloads this one first, as ASan
    requires."""
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        if "libasan" in line and "=>" in line:
            return line.split("=>", 1)[1].split()[0]
    return None


def sanitized():
    """Whether the binaries under test are built with ASan: their memory and
    time are then several times a plain build's (shadow memory, the
    quarantine of freed blocks, checked accesses), and bounds on them are
    scaled by the factors below."""
    return asan_runtime() is not None


SANITIZED_MEMORY_FACTOR = 4
SANITIZED_TIME_FACTOR = 4


def run(*args, check=None, user=None, stdin=None, timeout=60):
    """Runs ramwatch with args; returns the CompletedProcess (text)."""
    cmd = [RAMWATCH, *map(str, args)]
    if user:
        cmd = ["runuser", "-u", user, "--", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=timeout)
    if check is not None:
        assert r.returncode == check, f"{cmd}: exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
    return r


def scan_json(pid, *extra, user=None):
    r = run("scan", pid, "--json", *extra, check=0, user=user)
    return json.loads(r.stdout)


def region_at(census, address):
    """The region of a census (with "regions") that contains address."""
    for r in census["regions"]:
        if int(r["start"], 16) <= address < int(r["end"], 16):
            return r
    raise AssertionError(f"no region holds {address:#x}")


def rollup(pid):
    """The kernel's own sums: /proc/PID/smaps_rollup, in bytes."""
    out = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1]) * 1024
    return out


class Shapes:
    """The ground-truth helper, running: what it built, by shape."""

    def __init__(self, proc, shapes, unsupported):
        self.proc = proc
        self.pid = proc.pid
        self.shapes = shapes          # name -> [records]
        self.unsupported = unsupported  # name -> reason

    def read_until(self, shape, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            record = json.loads(line)
            self.shapes.setdefault(record["shape"], []).append(record)
            if record["shape"] == shape:
                return record
        raise AssertionError(f"the helper did not report {shape}")


def start_shapes(tmp_dir, user=None):
    cmd = [os.path.join(HELPERS, "shapes"), str(tmp_dir)]
    if user:
        cmd = ["runuser", "-u", user, "--", *cmd]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    shapes, unsupported = {}, {}
    for line in proc.stdout:
        line = line.strip()
        if line == "ready":
            break
        record = json.loads(line)
        if "unsupported" in record:
            unsupported[record["shape"]] = record["unsupported"]
        else:
            shapes.setdefault(record["shape"], []).append(record)
    else:
        raise AssertionError("the shapes helper exited before it was ready")
    # with runuser the helper is a child of runuser: find the real pid
    pid = proc.pid
    if user:
        for _ in range(100):
            out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            if out:
                pid = int(out[0])
                break
            time.sleep(0.05)
    s = Shapes(proc, shapes, unsupported)
    s.pid = pid
    wait_idle(pid)
    return s


def wait_idle(pid, timeout=5):
    """Waits until the process sleeps in poll(): between its "ready" and
    that it still runs and may touch memory, which a census racing it would
    see and the kernel's sums read a moment later would not."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/wchan") as f:
                if "poll" in f.read():
                    return
        except OSError:
            pass
        time.sleep(0.005)
    raise AssertionError(f"process {pid} did not settle in poll()")


def stop(proc):
    if proc.poll() is None:
        try:
            proc.stdin.close()
        except Exception:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_java_hold(tmp_dir, arrays, heap="512m"):
    """A JVM holding arrays of 1 MiB, written whole; ready when it says so.
    Returns the Popen (its standard input ends it)."""
    src = os.path.join(str(tmp_dir), "Hold.java")
    with open(src, "w") as f:
        f.write("public class Hold {\n"
                "    public static void main(String[] a) throws Exception {\n"
                f"        byte[][] keep = new byte[{arrays}][];\n"
                "        for (int i = 0; i < keep.length; i++) { keep[i] = new byte[1 << 20]; "
                "java.util.Arrays.fill(keep[i], (byte) 1); }\n"
                "        System.out.println(\"ready\");\n"
                "        System.in.read();\n"
                "        System.out.println(keep.length);\n"
                "    }\n"
                "}\n")
    p = subprocess.Popen(["java", f"-Xmx{heap}", "-XX:+UseSerialGC", src], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.strip() == "ready", f"java did not start: {line!r}"
    return p


@pytest.fixture
def shapes(tmp_path):
    s = start_shapes(tmp_path)
    yield s
    stop(s.proc)


@pytest.fixture(scope="module")
def shapes_once(tmp_path_factory):
    s = start_shapes(tmp_path_factory.mktemp("shapes"))
    yield s
    stop(s.proc)


@pytest.fixture(scope="session")
def unprivileged_user():
    """A real unprivileged user, made for the tests and removed after."""
    if os.geteuid() != 0:
        pytest.skip("creating a user needs root")
    name = "rwtest"
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    yield name
    subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    subprocess.run(["userdel", name], capture_output=True)


@pytest.fixture
def daemons():
    """Makes real daemons (rwdaemon.Daemon) and kills whichever are left
    when the test ends."""
    from rwdaemon import Daemon
    started = []

    def make(tmp, config, **kw):
        d = Daemon(tmp, config, **kw)
        started.append(d)
        return d

    yield make
    for d in started:
        if d.proc and d.alive():
            d.stop(signal.SIGKILL)
