"""The control protocol over the named pipe under Wine: the daemon's real
control code (daemon/control*.c) on the Windows event loop and pipe
transport, served by tests/windows/ctlserve.c (a daemon that watches
nothing), answers ramwatch.exe status over the pipe (--pipe and
$RAMWATCH_PIPE); knows its client by the SID of the client's process;
stays answering after garbage, a request past the size limit, a silent
client and more clients than it takes at once; refuses a second server on
the same state directory (the lock) or the same pipe; and runs as a
service that sc starts, queries and stops, with its log in
%ProgramData%\\ramwatch\\ramwatchd.log.

What Wine cannot confirm: a second account (LogonUser is a stub), so the
access rule's "others' processes" side and the pipe's security descriptor
against a user who is not an administrator are checked on real Windows
only (README, "On Windows").  Run by make check-windows."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from wine import EXE, WIN, WINE, sc, service_state, session, winpath

CTLSERVE = os.path.join(WIN, "tests", "ctlserve.exe")
PIPEPOKE = os.path.join(WIN, "tests", "pipepoke.exe")
SERVICE = "ramwatch-ctlserve"
REQUEST_MAX = 64 * 1024  # RW_REQUEST_MAX
CLIENTS_MAX = 64  # RW_CLIENTS_MAX


@pytest.fixture(scope="module")
def wine_env():
    yield from session(((CTLSERVE, "ctlserve.exe (make check-windows)"),
                        (PIPEPOKE, "pipepoke.exe (make check-windows)")))


class Server:
    def __init__(self, env, state, pipe):
        self.pipe = pipe
        self.p = subprocess.Popen([WINE, CTLSERVE, "--foreground", "--pipe", pipe, "--state-dir", winpath(state)],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        line = self.p.stdout.readline()
        if line.strip() != "ready":
            self.p.kill()
            raise AssertionError(("not ready", line, self.p.stderr.read()))

    def stop(self):
        """Ctrl-C (Wine turns SIGINT into one); the server's log."""
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGINT)
        try:
            _, err = self.p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        return err


@pytest.fixture
def server(wine_env, tmp_path):
    s = Server(wine_env, tmp_path, r"\\.\pipe\ramwatch-test-%d" % os.getpid())
    yield s
    s.stop()


def status(env, pipe, *extra, use_env=False):
    args = [WINE, EXE, "status", *extra]
    e = dict(env)
    if use_env:
        e["RAMWATCH_PIPE"] = pipe
    else:
        args[3:3] = ["--pipe", pipe]
    return subprocess.run(args, env=e, capture_output=True, text=True, timeout=60)


def poke(env, pipe, *args):
    r = subprocess.run([WINE, PIPEPOKE, pipe, *args], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def assert_answers(env, pipe):
    r = status(env, pipe)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ramwatchd "), r.stdout
    assert re.search(r"^watched +0 processes$", r.stdout, re.M), r.stdout


def test_status_over_the_pipe(wine_env, server):
    assert_answers(wine_env, server.pipe)
    r = status(wine_env, server.pipe, use_env=True)
    assert r.returncode == 0 and r.stdout.startswith("ramwatchd "), r.stderr
    log = server.stop()
    # the client's account is its process's user SID (Wine's one user)
    m = re.search(r"control #1: connection from (S-1-5-[0-9-]+) \(pid (\d+)\)", log)
    assert m, log
    assert re.search(r"control #1: status from %s \(pid %s\): ok" % (m.group(1), m.group(2)), log), log
    assert "<6>Ctrl-C: stopping" in log


def test_no_daemon(wine_env):
    r = status(wine_env, r"\\.\pipe\ramwatch-nobody-here")
    assert r.returncode == 1
    assert "no such pipe" in r.stderr and "is ramwatchd running?" in r.stderr, r.stderr


def test_requests_not_served_on_windows_are_refused_by_name(wine_env, server):
    r = subprocess.run([WINE, EXE, "history", "--pipe", server.pipe, "--unit", "x.service"], env=wine_env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "the request 'cgroup_history' is not served on this platform" in r.stderr, r.stderr


def test_garbage_is_answered_and_the_server_goes_on(wine_env, server):
    out = poke(wine_env, server.pipe, "line", "this is not JSON")
    answer = json.loads(out[0])
    assert answer["ok"] is False and answer["code"] == "bad_request", answer
    # the connection stays for the next request
    assert out[-1] == "open"
    out = poke(wine_env, server.pipe, "line", '{"op":"no-such-op"}')
    assert json.loads(out[0])["code"] == "bad_request"
    out = poke(wine_env, server.pipe, "line", '{"op":"status","id":7}')
    answer = json.loads(out[0])
    assert answer["ok"] is True and answer["id"] == 7
    assert_answers(wine_env, server.pipe)


def test_a_request_past_the_limit_is_refused_and_closed(wine_env, server):
    out = poke(wine_env, server.pipe, "bytes", str(REQUEST_MAX + 1))
    answer = json.loads(out[0])
    assert answer["code"] == "too_large", answer
    assert str(REQUEST_MAX) in answer["error"]
    assert out[-1] == "closed"
    assert_answers(wine_env, server.pipe)


def test_a_silent_client_holds_only_its_own_connection(wine_env, server):
    holder = subprocess.Popen([WINE, PIPEPOKE, server.pipe, "hold", "4000"], env=wine_env, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        t = time.monotonic()
        assert_answers(wine_env, server.pipe)
        assert time.monotonic() - t < 3.5
    finally:
        out, _ = holder.communicate(timeout=60)
    # the idle limit is a minute: still open after 4 s
    assert out.split() == ["open"]


def test_more_clients_than_it_takes(wine_env, server):
    out = poke(wine_env, server.pipe, "many", str(CLIENTS_MAX + 3), "1500")
    assert len(out) == CLIENTS_MAX + 3
    busy = [json.loads(x) for x in out if x != "none"]
    assert len(busy) == 3, out
    assert all(b["code"] == "busy" for b in busy)
    assert_answers(wine_env, server.pipe)


def test_one_server_per_state_directory_and_per_pipe(wine_env, server, tmp_path):
    state = tmp_path  # the server fixture's directory
    r = subprocess.run([WINE, CTLSERVE, "--foreground", "--pipe", server.pipe + "-2", "--state-dir", winpath(state)],
                       env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert re.search(r"another ramwatchd \(pid \d+\) is using the state directory", r.stderr), r.stderr
    other = tmp_path / "other"
    other.mkdir()
    r = subprocess.run([WINE, CTLSERVE, "--foreground", "--pipe", server.pipe, "--state-dir", winpath(other)],
                       env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "another process serves the pipe" in r.stderr, r.stderr
    assert_answers(wine_env, server.pipe)


def wait_state(env, want, limit=60):
    until = time.monotonic() + limit
    while time.monotonic() < until:
        state = service_state(env, SERVICE)
        if state == want:
            return
        time.sleep(0.3)
    raise AssertionError(f"{SERVICE}: {state}, not {want}")


def test_service(wine_env, tmp_path):
    pipe = r"\\.\pipe\ramwatch-service-%d" % os.getpid()
    log_path = os.path.join(wine_env["WINEPREFIX"], "drive_c", "ProgramData", "ramwatch", "ramwatchd.log")
    log_start = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    r = subprocess.run([WINE, CTLSERVE, "--install", "--pipe", pipe, "--state-dir", winpath(tmp_path)], env=wine_env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"installed the service {SERVICE}" in r.stdout
    try:
        # started from the console, it says how it is run
        r = subprocess.run([WINE, CTLSERVE], env=wine_env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "--foreground" in r.stderr, r.stderr
        wait_state(wine_env, "STOPPED")
        r = sc(wine_env, "start", SERVICE)
        assert r.returncode == 0, r.stdout + r.stderr
        wait_state(wine_env, "RUNNING")
        assert_answers(wine_env, pipe)
        r = sc(wine_env, "stop", SERVICE)
        assert r.returncode == 0, r.stdout + r.stderr
        wait_state(wine_env, "STOPPED")
        # the lock went with the service: a server in the console takes it
        s = Server(wine_env, tmp_path, pipe)
        s.stop()
    finally:
        r = subprocess.run([WINE, CTLSERVE, "--uninstall"], env=wine_env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and f"removed the service {SERVICE}" in r.stdout, r.stdout + r.stderr
    r = sc(wine_env, "query", SERVICE)
    assert r.returncode != 0 and "STATE" not in r.stdout  # no such service
    with open(log_path) as f:
        f.seek(log_start)
        log = f.read()
    # time-stamped lines of this run, from start to stop
    assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z <6>%s starting as a service$" % SERVICE, log, re.M), log
    assert "<6>control pipe %s" % pipe in log
    assert "<6>service stop: stopping" in log
    assert "<6>%s stopped (exit code 0)" % SERVICE in log
