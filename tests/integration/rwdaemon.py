"""A real ramwatchd for the integration tests: started with a test
configuration and its own state directory, its readiness and status read
from a real notify socket, its database read the way users read it
(read-only SQLite), its control socket spoken to as root or as a real
unprivileged user."""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import weakref

from conftest import BUILD

RAMWATCHD = os.path.join(BUILD, "ramwatchd")

FAST = """\
[Watch]
MinPrivate=0
{watch}
[Sampling]
SampleInterval=100ms
StoreInterval=1s
DiscoverInterval=200ms
CensusInterval=1h
CensusOnGrowth=32M 5%
CensusMinSpacing=1s
{extra}
"""


def fast_config(watch="Watch=all", extra=""):
    return FAST.format(watch=watch, extra=extra)


# A client of the control socket run as another user: one request on
# standard input, the answer line on standard output.
_ASK_AS_USER = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(float(sys.argv[2]))
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read())
buf = b""
while not buf.endswith(b"\n"):
    chunk = s.recv(1 << 20)
    if not chunk:
        break
    buf += chunk
sys.stdout.buffer.write(buf)
"""


def ask(path, request, user=None, timeout=30):
    """Sends one request (a dict) to the control socket at path and returns
    the answer (a dict).  With user, the request comes from a process of
    that user (runuser), so the daemon sees that user's credentials."""
    line = (json.dumps(request) + "\n").encode()
    if user:
        r = subprocess.run(["runuser", "-u", user, "--", "/usr/bin/python3", "-c", _ASK_AS_USER, path,
                            str(timeout)], input=line, capture_output=True, timeout=timeout + 10)
        assert r.returncode == 0, f"asking as {user} failed: {r.stderr.decode()}"
        data = r.stdout
    else:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            s.sendall(line)
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
    assert data.endswith(b"\n"), f"no complete answer to {request}: {data[:200]!r}"
    return json.loads(data)


class Daemon:
    def __init__(self, tmp, config, user=None, args=(), socket=None, env=None, wrap=()):
        self.dir = str(tmp)
        self.wrap = list(wrap)  # a command the daemon runs under (unshare ...)
        self.env = dict(env or {})  # added to the daemon's environment
        self.config = os.path.join(self.dir, "ramwatchd.conf")
        self.state = os.path.join(self.dir, "state")
        self.db_path = os.path.join(self.state, "ramwatch.db")
        self.log_path = os.path.join(self.dir, "ramwatchd.log")
        self.user = user
        self.args = list(args)
        # without one given, a control socket of its own (short: a Unix
        # socket path has at most 107 bytes), never the system's default
        if socket is None:
            sock_dir = tempfile.mkdtemp(prefix="rw-", dir="/tmp")
            os.chmod(sock_dir, 0o777 if user else 0o755)  # the daemon's user creates it
            socket = os.path.join(sock_dir, "ctl.sock")
            # gone with this object (a daemon may be stopped and started
            # again on the same socket), not left in /tmp by every test
            weakref.finalize(self, shutil.rmtree, sock_dir, True)
        self.socket = socket
        self.proc = None
        self.notices = []
        self.write_config(config)

    def write_config(self, text):
        with open(self.config, "w") as f:
            f.write(text)
        os.chmod(self.config, 0o644)

    # ---------------------------------------------------------------- life

    def start(self, wait_ready=True):
        self.notify_path = os.path.join(self.dir, f"notify-{time.monotonic_ns()}")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        os.chmod(self.notify_path, 0o777)
        self.notify.settimeout(0.2)
        self._listening = True
        self._listener = threading.Thread(target=self._listen, daemon=True)
        self._listener.start()
        cmd = [RAMWATCHD, "--foreground", "--config", self.config, "--state-dir", self.state,
               "--log-level", "debug", *self.args]
        if self.socket:
            cmd += ["--socket", self.socket]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        cmd = [*self.wrap, *cmd]
        env = dict(os.environ, NOTIFY_SOCKET=self.notify_path, **self.env)
        env.pop("JOURNAL_STREAM", None)
        self.log = open(self.log_path, "a")
        self.started_at = time.time()
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        if wait_ready:
            self.wait_for(lambda: "READY=1" in self.notices, what="READY=1", timeout=20)
        return self

    def _listen(self):
        while self._listening:
            try:
                data = self.notify.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            for line in data.decode().splitlines():
                self.notices.append(line)

    @property
    def pid(self):
        """The daemon's own pid (with runuser, runuser's child)."""
        if not self.user:
            return self.proc.pid
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        return int(out[0]) if out else self.proc.pid

    def kill(self, sig):
        os.kill(self.pid, sig)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc and self.proc.poll() is None:
            self.kill(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._listening = False
        try:
            self.notify.close()
            os.unlink(self.notify_path)
        except OSError:
            pass
        self.log.close()
        return self.proc.returncode

    def ask(self, request, user=None, timeout=30):
        """One request to this daemon's control socket (see ask())."""
        return ask(self.socket, request, user=user, timeout=timeout)

    def alive(self):
        return self.proc.poll() is None

    def logs(self):
        # the log is the daemon's text; a byte that is not UTF-8 must not
        # stop a test from reading the rest
        with open(self.log_path, errors="backslashreplace") as f:
            return f.read()

    def status(self):
        lines = [n for n in self.notices if n.startswith("STATUS=")]
        return lines[-1][len("STATUS="):] if lines else ""

    # ---------------------------------------------------------------- database

    def db(self):
        con = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)
        con.row_factory = sqlite3.Row
        return con

    def query(self, sql, *params):
        con = self.db()
        try:
            return [dict(r) for r in con.execute(sql, params).fetchall()]
        finally:
            con.close()

    def wait_for(self, predicate, what="the condition", timeout=15, interval=0.1):
        deadline = time.time() + timeout
        last_error = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"ramwatchd exited ({self.proc.returncode}) waiting for {what}:\n{self.logs()}")
            try:
                value = predicate()
                if value:
                    return value
            except (sqlite3.OperationalError, OSError) as e:
                last_error = e
            time.sleep(interval)
        raise AssertionError(f"timed out waiting for {what} (last error: {last_error})\n{self.logs()[-4000:]}")

    def wait_rows(self, sql, *params, n=1, timeout=15, what=None):
        return self.wait_for(lambda: (lambda rows: rows if len(rows) >= n else None)(self.query(sql, *params)),
                             what=what or sql, timeout=timeout)

    def ticks_stored(self, pid_row):
        """How many store ticks the fast-tier rows of a process stand for:
        a steady process's rows are coalesced into one row over their span,
        so the rows are counted by the system rows (one every tick, never
        coalesced) from the first row's time to the last one's until."""
        return len(self.tick_times(pid_row))

    def tick_times(self, pid_row=None):
        """The times of the store ticks that the raw rows of a process (None:
        of any process) stand for, oldest first."""
        return [r["time"] for r in self.query(
            "SELECT y.time FROM system y WHERE EXISTS (SELECT 1 FROM samples s WHERE s.resolution = 0"
            " AND (?1 IS NULL OR s.process_id = ?1) AND y.time BETWEEN s.time AND s.until) ORDER BY y.time",
            pid_row)]

    def wait_ticks(self, pid_row, n, what=None):
        """Waits until the rows of a process stand for n store ticks."""
        return self.wait_for(lambda: self.ticks_stored(pid_row) >= n, what=what or f"{n} store ticks")

    def process_id(self, pid):
        rows = self.wait_rows("SELECT * FROM processes WHERE pid = ? ORDER BY id", pid, what=f"process {pid}")
        return rows[-1]["id"]
