"""The control socket end to end: a real ramwatchd, real processes whose
memory shapes are known (the shapes helper), real clients as root and as a
real unprivileged user, and clients that misbehave: garbage, too much, too
little, too many, never reading."""
import grp
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import BUILD, MiB, start_shapes, stop
from rwdaemon import RAMWATCHD, Daemon, ask, fast_config

REQUEST_MAX = 64 * 1024   # RW_REQUEST_MAX
CLIENTS_MAX = 64          # RW_CLIENTS_MAX
RULE = "may see only your own processes; members of group ramwatch see all"
SANITIZED = "sanitize" in BUILD


def socket_dir():
    """A directory every user can reach (pytest's tmp_path is 0700), with
    a short path (sun_path holds 107 bytes)."""
    d = tempfile.mkdtemp(prefix="rwctl-", dir="/tmp")
    os.chmod(d, 0o755)
    return d


class Conn:
    """A raw connection, for what ask() does not do: several requests on
    one connection, partial lines, bytes that are not JSON."""

    def __init__(self, path, timeout=20):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def request(self, obj):
        self.send((json.dumps(obj) + "\n").encode())

    def answer(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise AssertionError(f"closed before an answer (got {self.buf[:200]!r})")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def closed(self, timeout=5):
        """Whether the daemon closes the connection (within timeout)."""
        self.s.settimeout(timeout)
        try:
            while True:
                chunk = self.s.recv(1 << 20)
                if not chunk:
                    return True
                self.buf += chunk
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.s.close()


def private_of(pid):
    """private as the daemon counts it: RssAnon + VmSwap."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if v.strip().endswith("kB"):
                fields[k] = int(v.split()[0]) * 1024
    return fields["RssAnon"] + fields.get("VmSwap", 0)


def child_pid(proc, name):
    """The pid of the process runuser started."""
    for _ in range(200):
        out = subprocess.run(["pgrep", "-P", str(proc.pid), "-x", name], capture_output=True, text=True).stdout.split()
        if out:
            return int(out[0])
        time.sleep(0.02)
    raise AssertionError(f"no {name} under {proc.pid}")


def free_pid():
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) - 1
    while os.path.exists(f"/proc/{pid}"):
        pid -= 1
    return pid


class Env:
    pass


@pytest.fixture(scope="module")
def env(tmp_path_factory, unprivileged_user):
    """One daemon watching the shapes helpers: one of root, one of the
    unprivileged user."""
    e = Env()
    e.base = socket_dir()
    e.user = unprivileged_user
    e.uid = pwd.getpwnam(unprivileged_user).pw_uid
    e.path = os.path.join(e.base, "ramwatch.sock")
    user_dir = os.path.join(e.base, "user")
    os.mkdir(user_dir)
    os.chmod(user_dir, 0o777)
    e.mine = start_shapes(e.base)
    e.theirs = start_shapes(user_dir, user=unprivileged_user)
    e.d = Daemon(tmp_path_factory.mktemp("daemon"), fast_config("Watch=name:shapes"), socket=e.path)
    try:
        e.d.start()
        for pid in (e.mine.pid, e.theirs.pid):
            e.d.wait_rows("SELECT c.id FROM censuses c JOIN processes p ON p.id = c.process_id "
                          "WHERE p.pid = ? AND c.status = 'ok'", pid, what=f"a census of {pid}")
        yield e
        assert e.d.alive(), e.d.logs()[-3000:]
        assert e.d.stop() == 0
        # the socket file goes with the daemon
        assert not os.path.exists(e.path)
    finally:
        if e.d.proc and e.d.alive():
            e.d.stop(signal.SIGKILL)
        stop(e.mine.proc)
        stop(e.theirs.proc)
        shutil.rmtree(e.base, ignore_errors=True)


@pytest.fixture
def sockdir():
    d = socket_dir()
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def sleeper():
    """A process the daemon does not watch (its name is not shapes)."""
    p = subprocess.Popen(["sleep", "300"])
    yield p
    p.kill()
    p.wait()


# ------------------------------------------------------------------ ops


def test_status(env):
    a = env.d.ask({"op": "status", "id": "s-1"})
    assert a["ok"] and a["id"] == "s-1", a
    r = a["result"]
    version = subprocess.run([RAMWATCHD, "--version"], capture_output=True, text=True).stdout.split()[-1]
    assert r["version"] == version
    assert r["pid"] == env.d.pid
    assert 0 < r["uptime_ms"] <= (time.time() - env.d.started_at) * 1000 + 1000
    assert r["config"] == env.d.config
    db = r["database"]
    assert db["path"] == env.d.db_path and db["size"] > 0
    assert db["schema_version"] == env.d.query("PRAGMA user_version")[0]["user_version"]
    assert db["writing"] is True and db["error"] is None and db["dropped_rows"] == 0
    assert r["watched"] >= 2
    assert r["budget"]["share"] == 0.02 and 0 <= r["budget"]["used"] < 1
    assert r["censuses"]["ok"] >= 2 and set(r["censuses"]) >= {"ok", "exited", "denied", "error", "light"}
    assert r["censuses_per_minute"] > 0
    assert isinstance(r["last_errors"], list)
    meminfo = {k: int(v.split()[0]) * 1024 for k, v in
               (line.split(":", 1) for line in open("/proc/meminfo"))}
    sysm = r["system"]
    assert sysm["mem_total"] == meminfo["MemTotal"] and sysm["swap_total"] == meminfo["SwapTotal"]
    assert 0 < sysm["mem_available"] <= sysm["mem_total"]
    assert abs(sysm["time"] / 1000 - time.time()) < 60
    try:
        open("/proc/pressure/memory").read()
        assert 0 <= sysm["pressure"]["some_avg10"] <= 100 and 0 <= sysm["pressure"]["full_avg60"] <= 100
    except OSError:
        assert sysm["pressure"] is None


def test_last_errors_only_for_the_privileged(env):
    """A refused reload is an error the daemon remembers: root sees it,
    another user does not."""
    good = open(env.d.config).read()
    env.d.write_config(good + "SampleInterval=soon\n")
    env.d.kill(signal.SIGHUP)
    env.d.wait_for(lambda: "reload refused" in env.d.logs(), what="the refusal logged")
    env.d.write_config(good)
    root = env.d.ask({"op": "status"})["result"]
    assert any("reload refused" in e["message"] and e["level"] == "err" and e["time"] > 0
               for e in root["last_errors"]), root["last_errors"]
    user = env.d.ask({"op": "status"}, user=env.user)
    assert user["ok"] and user["result"]["last_errors"] == []
    assert user["result"]["watched"] == root["watched"]


def test_processes(env):
    r = env.d.ask({"op": "processes"})["result"]
    assert r["filtered_to_uid"] is None
    by_pid = {p["pid"]: p for p in r["processes"]}
    assert env.mine.pid in by_pid and env.theirs.pid in by_pid
    p = by_pid[env.mine.pid]
    assert p["watched"] is True and p["comm"] == "shapes" and p["uid"] == 0 and p["user"] == "root"
    assert p["exe"].endswith("/shapes") and p["exited_at"] is None
    assert p["process_id"] == env.d.process_id(env.mine.pid)
    # the last sample: what the kernel says now (the helper is idle)
    assert abs(p["private"] - private_of(env.mine.pid)) <= 2 * MiB, (p["private"], private_of(env.mine.pid))
    assert p["peak_private"] >= p["private"] > 0 and p["peak_resident"] >= p["resident"] > 0
    assert p["last_census"]["status"] == "ok" and p["last_census"]["census_id"] > 0
    their = by_pid[env.theirs.pid]
    assert their["uid"] == env.uid and their["user"] == env.user
    # largest private first
    privates = [q["private"] for q in r["processes"] if q["watched"]]
    assert privates == sorted(privates, reverse=True)
    resident = env.d.ask({"op": "processes", "sort": "resident"})["result"]["processes"]
    assert [q["resident"] for q in resident] == sorted((q["resident"] for q in resident), reverse=True)
    assert len(env.d.ask({"op": "processes", "limit": 1})["result"]["processes"]) == 1

    # another user sees their own, and is told the list is filtered
    r = env.d.ask({"op": "processes"}, user=env.user)["result"]
    assert r["filtered_to_uid"] == env.uid
    pids = {p["pid"] for p in r["processes"]}
    assert env.theirs.pid in pids and env.mine.pid not in pids
    assert all(p["uid"] == env.uid for p in r["processes"])


def test_processes_all_adds_the_exited(env, tmp_path):
    gone = start_shapes(tmp_path)
    row = env.d.process_id(gone.pid)
    env.d.wait_for(lambda: gone.pid in {p["pid"] for p in env.d.ask({"op": "processes"})["result"]["processes"]},
                   what="the new process listed")
    stop(gone.proc)
    env.d.wait_for(lambda: env.d.query("SELECT exited_at FROM processes WHERE id = ?", row)[0]["exited_at"],
                   what="the exit stored")
    watched = env.d.ask({"op": "processes"})["result"]["processes"]
    assert gone.pid not in {p["pid"] for p in watched}
    every = env.d.ask({"op": "processes", "all": True})["result"]["processes"]
    entry = [p for p in every if p["process_id"] == row]
    assert len(entry) == 1 and entry[0]["watched"] is False and entry[0]["exited_at"] is not None
    # the watched ones come first
    flags = [p["watched"] for p in every]
    assert flags == sorted(flags, reverse=True)
    # the user's list with all holds only their processes
    mine = env.d.ask({"op": "processes", "all": True}, user=env.user)["result"]
    assert all(p["uid"] == env.uid for p in mine["processes"]) and mine["filtered_to_uid"] == env.uid


def test_history(env):
    pid = env.mine.pid
    env.d.wait_ticks(env.d.process_id(pid), 2)
    a = env.d.ask({"op": "history", "pid": pid, "id": 9})
    assert a["ok"] and a["id"] == 9, a
    r = a["result"]
    assert r["instances"][0]["pid"] == pid and r["instances"][0]["comm"] == "shapes"
    # two store ticks or more, in rows or in a coalesced row's span
    assert r["samples"] and r["samples"][-1]["until"] > r["samples"][0]["time"]
    for s in r["samples"]:
        assert s["private_min"] <= s["private"] <= s["private_max"]
    first = [c for c in r["censuses"] if c["trigger"] == "first"]
    assert first and first[0]["status"] == "ok"
    assert {"malloc", "stacks", "images"} <= set(first[0]["classes"])

    only = env.d.ask({"op": "history", "pid": pid, "classes": ["stacks"]})["result"]
    assert all(set(c["classes"]) <= {"stacks"} for c in only["censuses"])
    assert len(env.d.ask({"op": "history", "pid": pid, "limit": 1})["result"]["samples"]) == 1
    # a window before the process was seen: nothing
    old = env.d.ask({"op": "history", "pid": pid, "since": 0, "until": 1000})["result"]
    assert old["samples"] == [] and old["censuses"] == []


def test_history_of_another_users_process_is_denied(env):
    a = env.d.ask({"op": "history", "pid": env.mine.pid}, user=env.user)
    assert not a["ok"] and a["code"] == "denied", a
    assert f"process {env.mine.pid}" in a["error"] and "uid 0" in a["error"]
    assert f"you (uid {env.uid}) {RULE}" in a["error"]
    for op in ("report", "census", "events"):
        a = env.d.ask({"op": op, "pid": env.mine.pid}, user=env.user)
        assert a["code"] == "denied" and RULE in a["error"], (op, a)
    # their own is fine
    a = env.d.ask({"op": "history", "pid": env.theirs.pid}, user=env.user)
    assert a["ok"] and a["result"]["instances"][0]["uid"] == env.uid
    # by name: only theirs, and said so
    r = env.d.ask({"op": "history", "name": "shapes"}, user=env.user)["result"]
    assert r["filtered_to_uid"] == env.uid
    assert r["instances"] and all(i["uid"] == env.uid for i in r["instances"])


def test_report_and_census(env):
    pid = env.mine.pid
    r = env.d.ask({"op": "report", "pid": pid})["result"]
    assert r["process"]["pid"] == pid and r["process"]["watched"] is True
    assert r["process"]["private"] > 0
    assert r["last_census"]["format"] == "ramwatch-census" and r["last_census"]["status"] == "ok"
    assert r["phases"] and r["phases"][0]["name"] == "(start)"

    c = env.d.ask({"op": "census", "pid": pid})["result"]
    assert c["format"] == "ramwatch-census" and c["process"]["pid"] == pid
    assert c["status"] == "ok" and c["census_id"] > 0
    assert sum(k["private"] for k in c["classes"]) == c["totals"]["private"]
    stored = env.d.query("SELECT private FROM censuses WHERE id = ?", c["census_id"])[0]
    assert stored["private"] == c["totals"]["private"]

    a = env.d.ask({"op": "census", "pid": pid, "at": 1000})
    assert not a["ok"] and a["code"] == "not_found"
    a = env.d.ask({"op": "report", "pid": free_pid()})
    assert not a["ok"] and a["code"] == "not_found"


def test_events_after_growth(env):
    pid = env.mine.pid
    row = env.d.process_id(pid)
    env.mine.proc.send_signal(signal.SIGUSR1)
    grown = env.mine.read_until("growth")
    env.d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'growth'", row,
                    what="a growth census")
    r = env.d.ask({"op": "events", "pid": pid})["result"]
    assert r["instance"]["pid"] == pid
    start = int(grown["start"], 16)
    assert any(e["kind"] == "appeared" and int(e["start"], 16) == start and e["class"] == "other"
               and e["size"] >= 64 * MiB for e in r["events"]), r["events"]
    times = [e["time"] for e in r["events"]]
    assert times == sorted(times)


def test_scan_of_a_watched_process(env):
    pid = env.mine.pid
    row = env.d.process_id(pid)
    asked = time.time() * 1000
    a = env.d.ask({"op": "scan", "pid": pid})
    assert a["ok"], a
    c = a["result"]
    assert c["format"] == "ramwatch-census" and c["process"]["pid"] == pid
    assert c["trigger"] == "request" and c["status"] == "ok"
    assert c["taken_at"] >= asked - 1000
    assert abs(c["totals"]["private"] - private_of(pid)) <= 4 * MiB
    # ... and it is stored
    env.d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'request' AND time = ?",
                    row, c["taken_at"], what="the requested census stored, at the time it says it was taken")


def test_scan_of_an_unwatched_process(env, sleeper):
    a = env.d.ask({"op": "scan", "pid": sleeper.pid})
    assert a["ok"], a
    c = a["result"]
    assert c["process"]["pid"] == sleeper.pid and c["process"]["comm"] == "sleep"
    assert c["totals"]["size"] > 0
    # not stored: the daemon does not watch it
    assert env.d.query("SELECT * FROM processes WHERE pid = ?", sleeper.pid) == []
    a = env.d.ask({"op": "scan", "pid": free_pid()})
    assert not a["ok"] and a["code"] == "not_found"


def test_scan_as_another_user(env, sleeper):
    p = subprocess.Popen(["runuser", "-u", env.user, "--", "sleep", "300"])
    try:
        theirs = child_pid(p, "sleep")
        a = env.d.ask({"op": "scan", "pid": theirs}, user=env.user)
        assert a["ok"] and a["result"]["process"]["uid"] == env.uid, a
        # a watched process of theirs too
        a = env.d.ask({"op": "scan", "pid": env.theirs.pid}, user=env.user)
        assert a["ok"] and a["result"]["trigger"] == "request", a
        # root's: refused before anything is read
        for pid in (sleeper.pid, env.mine.pid):
            a = env.d.ask({"op": "scan", "pid": pid}, user=env.user)
            assert not a["ok"] and a["code"] == "denied", a
            assert f"process {pid} (" in a["error"] and "belongs to uid 0 (root)" in a["error"]
            assert f"you (uid {env.uid}) {RULE}" in a["error"]
    finally:
        p.kill()
        p.wait()


def test_mark_then_history_shows_it(env):
    pid = env.mine.pid
    row = env.d.process_id(pid)
    before = time.time() * 1000
    a = env.d.ask({"op": "mark", "pid": pid, "name": "load \u2192 train"})
    assert a["ok"], a
    assert a["result"]["process_id"] == row and before - 1000 <= a["result"]["time"] <= time.time() * 1000 + 1000
    # stored in the next cycle; a census follows at once
    env.d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'mark'", row, what="the census")

    def marked():
        marks = env.d.ask({"op": "history", "pid": pid})["result"]["marks"]
        return [m for m in marks if m["name"] == "load \u2192 train"]
    m = env.d.wait_for(marked, what="the mark in history")
    assert m[0]["time"] == a["result"]["time"] and m[0]["by_uid"] == 0
    phases = env.d.ask({"op": "report", "pid": pid})["result"]["phases"]
    assert [p["name"] for p in phases][-1] == "load \u2192 train"

    # the other user marks theirs, not root's
    a = env.d.ask({"op": "mark", "pid": env.theirs.pid, "name": "theirs"}, user=env.user)
    assert a["ok"], a
    m = env.d.wait_for(lambda: [m for m in env.d.ask({"op": "history", "pid": env.theirs.pid}, user=env.user)
                                ["result"]["marks"] if m["name"] == "theirs"], what="their mark")
    assert m[0]["by_uid"] == env.uid
    a = env.d.ask({"op": "mark", "pid": pid, "name": "not yours"}, user=env.user)
    assert not a["ok"] and a["code"] == "denied" and RULE in a["error"]


def test_mark_refusals(env, sleeper):
    a = env.d.ask({"op": "mark", "pid": sleeper.pid, "name": "x"})
    assert not a["ok"] and a["code"] == "not_found" and "not watched" in a["error"], a
    a = env.d.ask({"op": "mark", "pid": free_pid(), "name": "x"})
    assert a["code"] == "not_found"
    for name in ("", "two\nlines", "bell\u0007", "x" * 201):
        a = env.d.ask({"op": "mark", "pid": env.mine.pid, "name": name})
        assert not a["ok"] and a["code"] == "bad_request" and a["error"].startswith("name:"), (name, a)
    a = env.d.ask({"op": "mark", "pid": env.mine.pid, "name": "x" * 200})
    assert a["ok"], a


def test_group_members_see_everything(env):
    """A member of group ramwatch (made for the test) sees root's
    processes; the group is looked up per connection, no restart."""
    name = "rwtestgrp"
    made_group = False
    try:
        grp.getgrnam("ramwatch")
    except KeyError:
        subprocess.run(["groupadd", "ramwatch"], check=True)
        made_group = True
    try:
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
        before = env.d.ask({"op": "processes"}, user=name)["result"]
        assert before["filtered_to_uid"] == pwd.getpwnam(name).pw_uid
        subprocess.run(["usermod", "-aG", "ramwatch", name], check=True)
        r = env.d.ask({"op": "processes"}, user=name)["result"]
        assert r["filtered_to_uid"] is None
        assert env.mine.pid in {p["pid"] for p in r["processes"]}
        a = env.d.ask({"op": "history", "pid": env.mine.pid}, user=name)
        assert a["ok"], a
    finally:
        subprocess.run(["userdel", name], capture_output=True)
        if made_group:
            subprocess.run(["groupdel", "ramwatch"], capture_output=True)


# ------------------------------------------------------------------ clients that misbehave


def test_malformed_requests_are_answered_and_the_connection_stays(env):
    c = Conn(env.path)
    try:
        for bad, says in ((b"not json\n", "not JSON"), (b"[1, 2]\n", "JSON object"), (b"{}\n", "\"op\" is needed"),
                          (b'{"op": "status", "extra": 1}\n', "unknown argument 'extra'"),
                          (b"\x00\x01\x02\xff\xfe binary\n", "not UTF-8"),
                          (b'{"op": "st\xffatus"}\n', "not UTF-8 (byte 10)"),
                          (b'{"op": "history", "pid": "12"}\n', "pid: an integer"),
                          (b'{"op": "history", "pid": 1, "limit": 100001}\n', "limit: 100001 is out of range")):
            c.send(bad)
            a = c.answer()
            assert not a["ok"] and a["code"] == "bad_request" and says in a["error"], (bad, a)
        c.send(b'{"op": "status", "id": 3}\n')
        a = c.answer()
        assert a["ok"] and a["id"] == 3
        # several in one write: answered in order
        c.send(b"".join(b'{"op": "status", "id": %d}\n' % i for i in range(20)))
        assert [c.answer()["id"] for _ in range(20)] == list(range(20))
        # random bytes: one refusal per non-empty line, and then a good answer
        data = os.urandom(16384).replace(b"\n", b"\n\x01") + b"\n"
        lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in data.split(b"\n")[:-1]]
        c.send(data)
        for _ in [ln for ln in lines if ln]:
            a = c.answer()
            assert a["code"] == "bad_request", a
        c.send(b'{"op": "status", "id": "after"}\n')
        assert c.answer()["id"] == "after"
    finally:
        c.close()


def test_oversized_request(env):
    c = Conn(env.path)
    other = Conn(env.path)
    try:
        try:
            c.send(b'{"op": "status", "pad": "' + b"a" * REQUEST_MAX + b'"}\n')
        except (BrokenPipeError, ConnectionResetError):
            pass
        a = c.answer()
        assert not a["ok"] and a["code"] == "too_large" and str(REQUEST_MAX) in a["error"], a
        assert c.closed()
        # exactly the limit, newline included, is a request
        head = b'{"op": "status", "id": "max"'
        line = head + b" " * (REQUEST_MAX - len(head) - 2) + b"}\n"
        assert len(line) == REQUEST_MAX
        other.send(line)
        assert other.answer()["id"] == "max"
    finally:
        c.close()
        other.close()
    assert env.d.ask({"op": "status"})["ok"]


def test_truncated_and_half_closed(env):
    # a partial line, then gone
    c = Conn(env.path)
    c.send(b'{"op": "sta')
    c.close()
    # requests, then the client shuts its side: answered, then closed
    c = Conn(env.path)
    c.send(b'{"op": "status", "id": 1}\n{"op": "processes", "id": 2}\n')
    c.s.shutdown(socket.SHUT_WR)
    assert c.answer()["id"] == 1 and c.answer()["id"] == 2
    assert c.closed()
    c.close()
    # a last line without its newline is not a request
    c = Conn(env.path)
    c.send(b'{"op": "status"}')
    c.s.shutdown(socket.SHUT_WR)
    assert c.closed() and c.buf == b""
    c.close()
    # a client that goes away while its scan runs
    c = Conn(env.path)
    c.request({"op": "scan", "pid": env.mine.pid})
    c.close()
    assert env.d.ask({"op": "status"})["ok"]
    assert env.d.alive()


def test_silent_clients_hold_only_their_connection(env):
    silent = [Conn(env.path) for _ in range(5)]
    try:
        row = env.d.process_id(env.mine.pid)
        count = lambda: env.d.ticks_stored(row)
        n0 = count()
        t = time.monotonic()
        assert env.d.ask({"op": "status"})["ok"]
        assert time.monotonic() - t < 2
        # sampling goes on: rows keep arriving (StoreInterval=1s)
        env.d.wait_for(lambda: count() >= n0 + 2, what="rows while clients sit silent", timeout=10)
        # they are still open: the idle limit is a minute
        assert not any(c.closed(timeout=0.05) for c in silent)
    finally:
        for c in silent:
            c.close()


def test_fifty_clients_at_once(env):
    n = 50
    barrier = threading.Barrier(n)
    results = [None] * n

    def client(i):
        try:
            c = Conn(env.path)
            barrier.wait(timeout=20)
            c.request({"op": "status", "id": i})
            c.request({"op": "processes", "id": -i})
            results[i] = (c.answer(), c.answer())
            c.close()
        except Exception as e:  # reported below
            results[i] = e

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for i, r in enumerate(results):
        assert isinstance(r, tuple), (i, r)
        assert r[0]["ok"] and r[0]["id"] == i and r[1]["ok"] and r[1]["id"] == -i
        assert env.mine.pid in {p["pid"] for p in r[1]["result"]["processes"]}


def rss_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def test_a_client_that_never_reads(env):
    """Thousands of answers nobody reads: the daemon writes what the socket
    takes, then waits for that client alone; the others are served and
    sampling goes on; its memory does not grow with the unread answers."""
    stuck = Conn(env.path)
    rss0 = rss_of(env.d.pid)
    requests = b'{"op": "processes", "all": true}\n' * 4000
    sender = threading.Thread(target=lambda: stuck.send(requests), daemon=True)
    sender.start()
    try:
        time.sleep(2)
        row = env.d.process_id(env.mine.pid)
        count = lambda: env.d.ticks_stored(row)
        n0 = count()
        for _ in range(5):
            t = time.monotonic()
            assert env.d.ask({"op": "status"})["ok"]
            assert time.monotonic() - t < 2
        env.d.wait_for(lambda: count() >= n0 + 2, what="rows while a client does not read", timeout=10)
        if not SANITIZED:
            # at most one answer and one request line are held for it
            assert rss_of(env.d.pid) - rss0 < 32 * MiB
        # it gets what it asked for when it reads, in order
        for _ in range(10):
            assert stuck.answer()["ok"]
    finally:
        stuck.close()
    assert env.d.ask({"op": "status"})["ok"] and env.d.alive()


def test_busy_past_the_connection_limit(tmp_path, sockdir, daemons):
    path = os.path.join(sockdir, "busy.sock")
    d = daemons(tmp_path, fast_config("Watch=name:no-such-process"), socket=path).start()
    held = []
    try:
        for i in range(CLIENTS_MAX):
            c = Conn(path)
            c.request({"op": "status", "id": i})
            assert c.answer()["id"] == i
            held.append(c)
        extra = Conn(path)
        a = extra.answer()
        assert not a["ok"] and a["code"] == "busy" and str(CLIENTS_MAX) in a["error"], a
        assert extra.closed()
        extra.close()
        # one goes: there is room again
        held.pop().close()

        def served():
            try:
                return d.ask({"op": "status"}, timeout=5)["ok"]
            except (AssertionError, OSError):
                return False
        d.wait_for(served, what="a connection served again", timeout=10)
    finally:
        for c in held:
            c.close()
    assert d.alive()


# ------------------------------------------------------------------ the socket itself


def test_socket_file(tmp_path, sockdir, daemons):
    path = os.path.join(sockdir, "run", "ramwatch.sock")
    d = daemons(tmp_path, fast_config("Watch=name:no-such-process"), socket=path).start()
    st = os.stat(path)
    assert st.st_mode & 0o777 == 0o666
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o755
    assert d.ask({"op": "status"})["ok"]
    assert d.stop() == 0
    assert not os.path.exists(path)


def test_stale_socket_is_replaced(tmp_path, sockdir, daemons):
    path = os.path.join(sockdir, "ramwatch.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()  # the file stays: a daemon killed with -9 leaves one
    d = daemons(tmp_path, fast_config("Watch=name:no-such-process"), socket=path).start()
    assert d.ask({"op": "status"})["ok"]
    assert "removing the stale control socket" in d.logs()


def test_refusals_at_start(tmp_path, sockdir, daemons):
    # a file that is not a socket is left alone
    path = os.path.join(sockdir, "not-a-socket")
    with open(path, "w") as f:
        f.write("mine")
    for sub in "abcd":
        (tmp_path / sub).mkdir()
    d = daemons(tmp_path / "a", fast_config(), socket=path)
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    assert "exists and is not a socket" in d.logs()
    assert open(path).read() == "mine"

    # a socket another daemon listens on is not taken over
    path = os.path.join(sockdir, "ramwatch.sock")
    first = daemons(tmp_path / "b", fast_config("Watch=name:no-such-process"), socket=path).start()
    second = daemons(tmp_path / "c", fast_config("Watch=name:no-such-process"), socket=path)
    second.start(wait_ready=False)
    assert second.proc.wait(timeout=20) == 1
    assert "another process listens on" in second.logs()
    assert first.ask({"op": "status"})["result"]["pid"] == first.pid

    # a path longer than a socket address holds
    d = daemons(tmp_path / "d", fast_config(), socket="/tmp/" + "x" * 120)
    d.start(wait_ready=False)
    assert d.proc.wait(timeout=20) == 1
    assert "at most 107 bytes" in d.logs()


def test_socket_activation(tmp_path, sockdir):
    """systemd-socket-activate plays systemd: it listens, starts the daemon
    at the first connection and passes the socket (LISTEN_FDS)."""
    activate = shutil.which("systemd-socket-activate")
    if not activate:
        pytest.skip("systemd-socket-activate is not installed")
    path = os.path.join(sockdir, "activated.sock")
    config = tmp_path / "ramwatchd.conf"
    config.write_text(fast_config("Watch=name:no-such-process"))
    log = open(tmp_path / "log", "w")
    p = subprocess.Popen([activate, "-l", path, RAMWATCHD, "--foreground", "--config", str(config),
                          "--state-dir", str(tmp_path / "state"), "--log-level", "debug"],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        a = ask(path, {"op": "status"}, timeout=30)
        assert a["ok"] and a["result"]["pid"] == p.pid
        assert ask(path, {"op": "processes"}, user=None)["ok"]
    finally:
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
        log.close()
    logs = (tmp_path / "log").read_text()
    assert "control socket passed by systemd" in logs
    # the socket is systemd's: the daemon leaves it where it was
    assert os.path.exists(path)
