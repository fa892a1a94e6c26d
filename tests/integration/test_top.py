"""ramwatch top driven in tmux as a person would: a real daemon watching
real processes that hold known amounts of memory, keys sent with
send-keys, the screen read with capture-pane.  The rows, the order by
each key, the filters, a process's classes and marks, a census and a mark
taken from top (checked through history and report), quitting with the
terminal restored, the message without a daemon, and an unprivileged user
seeing only their own processes."""
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import RAMWATCH, MiB, run
from rwdaemon import Daemon, fast_config

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(not TMUX, reason="tmux is not installed (make deps)")

# A process that holds what it is told, every page written (bytes * n is
# filled by memset), reporting each step on standard output.
HOLDER = r"""
import mmap, sys
keep = []
for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "hold":
        keep.append(b"\x01" * (int(arg) << 20))
    elif cmd == "peak":
        peak = b"\x01" * (int(arg) << 20)
        print("holding", flush=True)
        sys.stdin.readline()
        del peak
    elif cmd == "file":
        f = open(arg, "rb")
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        keep.append(m)
        keep.append(sum(m[i] for i in range(0, len(m), 4096)))
    print("ok", flush=True)
"""


def fmt(n):
    """Bytes as the client writes them (common/util.c format_bytes)."""
    if n < 1024:
        return f"{n} B"
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    v, u = float(n), 0
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    if v >= 999.5:
        v /= 1024
        u += 1
    if v >= 99.95:
        return f"{v:.0f} {units[u]}"
    if v >= 9.995:
        return f"{v:.1f} {units[u]}"
    return f"{v:.2f} {units[u]}"


class Holder:
    def __init__(self, dir, name, user=None):
        exe = os.path.join(dir, name)
        if not os.path.exists(exe):
            os.symlink(sys.executable, exe)  # its name is the process's name
        script = os.path.join(dir, "holder.py")
        if not os.path.exists(script):
            with open(script, "w") as f:
                f.write(HOLDER)
        cmd = [exe, script]
        if user:
            cmd = ["runuser", "-u", user, "--", *cmd]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid
        if user:
            for _ in range(200):
                out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
                if out:
                    self.pid = int(out[0])
                    break
                time.sleep(0.02)

    def do(self, line, answer="ok"):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        got = self.proc.stdout.readline().strip()
        assert got == answer, f"{line}: {got!r}"

    def private(self):
        fields = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if v.strip().endswith("kB"):
                    fields[k] = int(v.split()[0]) * 1024
        return fields["RssAnon"] + fields.get("VmSwap", 0)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Pane:
    """ramwatch top (or a shell) in a tmux session of its own server."""

    def __init__(self, command, width=172, height=40, env=("TERM=screen",)):
        # a server of its own, its socket in a directory removed after
        self.dir = tempfile.mkdtemp(prefix="rwtmux-")
        self.server = os.path.join(self.dir, "tmux.sock")
        subprocess.run([TMUX, "-S", self.server, "-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y",
                        str(height), "-s", "top", "env", "LANG=C.UTF-8", *env, *command], check=True)

    def keys(self, *keys):
        subprocess.run([TMUX, "-S", self.server, "send-keys", "-t", "top", *keys], check=True)

    def text(self, escapes=False):
        r = subprocess.run([TMUX, "-S", self.server, "capture-pane", "-p", *(["-e"] if escapes else []), "-t", "top"],
                           capture_output=True, text=True)
        return r.stdout

    def wait(self, predicate, what, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            t = self.text()
            if predicate(t):
                return t
            time.sleep(0.1)
        raise AssertionError(f"the screen never showed {what}:\n{self.text()}")

    def wait_text(self, needle, timeout=20):
        return self.wait(lambda t: needle in t, repr(needle), timeout)

    def close(self):
        subprocess.run([TMUX, "-S", self.server, "kill-server"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


ROW = re.compile(r"^\s*(\d+) (\S+)\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s+([-+]?[\d.]+ \S+|-)\s(.*)$")
# the same with the IN USE column after PRIVATE (where a census read an allocator)
ROW_IN_USE = re.compile(
    r"^\s*(\d+) (\S+)\s+([\d.]+ \S+)\s+([\d.]+ \S+|-)\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s+([-+]?[\d.]+ \S+|-)\s(.*)$")


def has_in_use(screen):
    return re.search(r"^\s+PID USER\s+PRIVATE\s+IN USE\s+RESIDENT", screen, re.M) is not None


def rows(screen):
    """The process rows of the list: pid, user, private, resident, peak, growth, rest."""
    out = []
    with_in_use = has_in_use(screen)
    for line in screen.splitlines():
        m = (ROW_IN_USE if with_in_use else ROW).match(line)
        if m:
            g = m.groups()
            out.append(g[:3] + g[4:] if with_in_use else g)
    return out


def in_use(screen):
    """The IN USE column of each row, by pid (none without the column)."""
    if not has_in_use(screen):
        return {}
    return {int(m.group(1)): m.group(4) for m in map(ROW_IN_USE.match, screen.splitlines()) if m}


def size_of(text):
    """A size as the client writes it, in bytes."""
    v, unit = text.split()
    return float(v) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]


def order_of(screen, pids):
    """The pids of pids in the order the screen lists them."""
    return [int(r[0]) for r in rows(screen) if int(r[0]) in pids]


class Env:
    pass


@pytest.fixture(scope="module")
def env(tmp_path_factory, unprivileged_user):
    e = Env()
    e.dir = tempfile.mkdtemp(prefix="rwtop-", dir="/tmp")
    os.chmod(e.dir, 0o755)
    e.user = unprivileged_user
    e.holders = []
    try:
        # big holds its memory before the daemon sees it: its growth over
        # the window is about nothing, where the others grow by what they hold
        e.big = Holder(e.dir, "rwhold-big")
        e.holders.append(e.big)
        e.big.do("hold 96")
        e.d = Daemon(tmp_path_factory.mktemp("daemon"), fast_config("Watch=name:rwhold*"),
                     socket=os.path.join(e.dir, "ctl.sock"))
        e.d.start()
        e.mid = Holder(e.dir, "rwhold-mid")
        e.small = Holder(e.dir, "rwhold-small")
        e.theirs = Holder(e.dir, "rwhold-user", user=unprivileged_user)
        e.holders += [e.mid, e.small, e.theirs]
        watched = lambda: {p["pid"] for p in e.d.ask({"op": "processes"})["result"]["processes"]}
        e.d.wait_for(lambda: {e.big.pid, e.mid.pid, e.small.pid, e.theirs.pid} <= watched(), what="all watched")
        # a stored row of each before it grows: the start of its growth
        for h in (e.big, e.mid, e.small, e.theirs):
            e.d.wait_ticks(e.d.process_id(h.pid), 1, what=f"a stored row of {h.pid}")
        # mid: a peak of 200 MiB, seen by the daemon, then 48 MiB kept
        e.mid.do("peak 200", answer="holding")
        e.d.wait_for(lambda: any(p["pid"] == e.mid.pid and p["peak_private"] >= 200 * MiB
                                 for p in e.d.ask({"op": "processes"})["result"]["processes"]), what="mid's peak")
        e.mid.do("")
        e.mid.do("hold 48")
        # small: 16 MiB and a file of 128 MiB mapped and read: the most resident
        path = os.path.join(e.dir, "data.bin")
        with open(path, "wb") as f:
            f.write(b"\x02" * (128 * MiB))
        e.small.do("hold 16")
        e.small.do(f"file {path}")
        e.theirs.do("hold 8")
        for h in (e.big, e.mid, e.small):
            # a census of what they hold now (small grew less than
            # CensusOnGrowth asks, mid shrank from its peak)
            assert e.d.ask({"op": "scan", "pid": h.pid})["ok"]
            e.d.wait_for(lambda: census_private(e.d, h.pid) >= h.private() - 4 * MiB, what=f"{h.pid}'s census stored")
        e.d.wait_for(lambda: all(abs(p["private"] - h.private()) < MiB
                                 for p in e.d.ask({"op": "processes"})["result"]["processes"]
                                 for h in (e.big, e.mid, e.small) if p["pid"] == h.pid), what="samples settled")
        yield e
        assert e.d.alive(), e.d.logs()[-3000:]
    finally:
        for h in e.holders:
            h.stop()
        if getattr(e, "d", None) and e.d.proc and e.d.alive():
            e.d.stop()
        shutil.rmtree(e.dir, ignore_errors=True)


def census_private(d, pid):
    a = d.ask({"op": "history", "pid": pid})
    ok = [c for c in a["result"]["censuses"] if c["status"] == "ok"] if a["ok"] else []
    return ok[-1]["private"] if ok else 0


def top(env, *extra):
    return Pane([RAMWATCH, "top", "--socket", env.d.socket, "-d", "300ms", *extra])


def test_rows_and_order_by_each_key(env):
    p = top(env)
    try:
        pids = {env.big.pid, env.mid.pid, env.small.pid}
        screen = p.wait(lambda t: len(order_of(t, pids)) == 3 and "m malloc" in t, "the three holders")
        assert re.search(r"^ramwatch top: \d+ processes, by private, every 300ms", screen, re.M), screen
        assert re.search(r"^machine: [\d.]+ \S+ total, [\d.]+ \S+ available \(\d+%\)", screen, re.M), screen
        assert re.search(r"PID USER        PRIVATE(     IN USE)?   RESIDENT       PEAK     GROWTH CLASSES", screen)
        # the holders' glibc heaps were read: their memory in use beside
        # private, big's 96 MiB block among it
        assert has_in_use(screen), screen
        big_in_use = in_use(screen)[env.big.pid]
        assert big_in_use != "-" and 90 * MiB <= size_of(big_in_use) <= env.big.private(), (big_in_use, screen)
        assert order_of(screen, pids) == [env.big.pid, env.mid.pid, env.small.pid]
        # each row's figures are the daemon's, as the client writes them
        answer = {q["pid"]: q for q in env.d.ask({"op": "processes"})["result"]["processes"]}
        for r in rows(screen):
            pid = int(r[0])
            if pid in pids:
                assert r[1] == "root"
                assert r[2] == fmt(answer[pid]["private"]), (r, answer[pid])
                assert r[4] == fmt(answer[pid]["peak_private"]), (r, answer[pid])
        big = next(r for r in rows(screen) if int(r[0]) == env.big.pid)
        assert 96 * MiB <= answer[env.big.pid]["private"] <= 120 * MiB
        # the largest has the whole bar, mostly its malloc class; its command last
        if os.environ.get("RAMWATCH_TOP_SCREENSHOT"):  # for the README (doc/top.txt)
            lines = [line.rstrip() for line in screen.rstrip("\n").split("\n")]
            while len(lines) > 2 and lines[-2] == "":  # the empty rows, not the keys
                del lines[-2]
            with open(os.environ["RAMWATCH_TOP_SCREENSHOT"], "w") as f:
                f.write("\n".join(lines) + "\n")
        assert re.search(r"^m{12,}[a-z?]{0,8} ", big[6]), big
        assert f" {env.dir}/rwhold-big {env.dir}/hold" in big[6], big

        p.keys("R")
        screen = p.wait(lambda t: "by resident" in t, "the resident order")
        assert order_of(screen, pids) == [env.small.pid, env.big.pid, env.mid.pid]
        p.keys("E")
        screen = p.wait(lambda t: "by peak" in t, "the peak order")
        assert order_of(screen, pids) == [env.mid.pid, env.big.pid, env.small.pid]
        p.keys("G")
        screen = p.wait(lambda t: "by growth" in t, "the growth order")
        assert order_of(screen, pids) == [env.mid.pid, env.small.pid, env.big.pid], screen
        growth = {int(r[0]): r[5] for r in rows(screen)}
        assert re.match(r"\+4\d\.\d MiB", growth[env.mid.pid]), growth
        p.keys("V")
        screen = p.wait(lambda t: "by vram" in t, "the vram order")
        # no GPU here: no process has VRAM, so by pid
        assert order_of(screen, pids) == sorted(pids)
        p.keys("s")  # the next key after vram is private again
        screen = p.wait(lambda t: "by private" in t, "private again")
        assert order_of(screen, pids) == [env.big.pid, env.mid.pid, env.small.pid]
    finally:
        p.close()


def test_filters(env):
    p = top(env)
    try:
        pids = {env.big.pid, env.mid.pid, env.small.pid, env.theirs.pid}
        p.wait(lambda t: len(order_of(t, pids)) == 4, "the four holders")
        p.keys("/")
        p.wait_text("filter by name")
        p.keys("-l", "MID")  # a part of the command line, case ignored
        p.keys("Enter")
        screen = p.wait(lambda t: "name ~ 'MID'" in t and len(order_of(t, pids)) == 1, "the name filter")
        assert order_of(screen, pids) == [env.mid.pid]
        assert "ramwatch top: 1 process, by private" in screen
        p.keys("/")
        p.keys(*["BSpace"] * 3, "Enter")
        p.wait(lambda t: len(order_of(t, pids)) == 4, "the filter cleared")
        p.keys("u")
        p.keys("-l", env.user)
        p.keys("Enter")
        screen = p.wait(lambda t: f"user {env.user}" in t and len(order_of(t, pids)) == 1, "the user filter")
        assert order_of(screen, pids) == [env.theirs.pid]
        p.keys("u")
        p.keys(*["BSpace"] * len(env.user))
        p.keys("-l", "nobody-at-all")
        p.keys("Enter")
        p.wait_text("no watched process matches the filter")
    finally:
        p.close()


def test_detail_census_and_mark(env):
    p = top(env)
    pid = env.big.pid
    try:
        p.wait(lambda t: order_of(t, {pid}) == [pid], "the big holder")
        before = {c["census_id"] for c in env.d.ask({"op": "history", "pid": pid})["result"]["censuses"]}
        # the first row is picked; Enter shows it alone
        p.keys("Home", "Enter")
        screen = p.wait_text(f"ramwatch top: pid {pid} (rwhold-big) of user root")
        assert f"command: {env.dir}/rwhold-big {env.dir}/holder.py\n" in screen
        assert re.search(r"^classes at the census of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(private"
                         r"(; in use and free as the allocators count them)?\):", screen, re.M), screen
        m = re.search(r"^  m malloc\s+([\d.]+) MiB\s+([\d.]+)%", screen, re.M)
        assert m and 90 <= float(m.group(1)) <= 110 and float(m.group(2)) > 80, screen
        # glibc's heap read: the 96 MiB block is in use, and little is free
        m = re.search(r"^  m malloc .*% +([\d.]+ \S+) in use +([\d.]+ \S+) free ", screen, re.M)
        assert m and size_of(m.group(1)) >= 90 * MiB and size_of(m.group(2)) < 8 * MiB, screen
        assert re.search(r"^in use [\d.]+ MiB  free [\d.]+ \S+  \(of the classes whose allocator", screen, re.M), screen
        assert "marks (0):" in screen

        p.keys("c")
        screen = p.wait_text(f"census of pid {pid} taken:")
        # stored at the next store tick, as a census asked for
        env.d.wait_for(lambda: any(c["census_id"] not in before and c["trigger"] == "request" and c["status"] == "ok"
                                   for c in env.d.ask({"op": "history", "pid": pid})["result"]["censuses"]),
                       what="the census stored")

        p.keys("m")
        p.wait_text(f"mark pid {pid}, name of the phase to mark:")
        p.keys("-l", "phase one")
        p.keys("Enter")
        p.wait_text(f"mark 'phase one' set on pid {pid} at ")
        screen = p.wait_text("marks (1):")
        assert re.search(r"^  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  phase one$", screen, re.M), screen
        # as history and report tell it
        marks = env.d.ask({"op": "history", "pid": pid})["result"]["marks"]
        assert [m["name"] for m in marks] == ["phase one"] and marks[0]["by_uid"] == 0
        report = run("report", "--pid", pid, "--socket", env.d.socket, check=0).stdout
        assert "phase one" in report
        # an empty name is refused, and nothing is set
        p.keys("m")
        p.wait_text("name of the phase to mark:")
        p.keys("Enter")
        p.wait_text("a mark's name is 1 to 200 bytes of UTF-8 text")
        # Esc while typing sets nothing either
        p.keys("m")
        p.keys("-l", "never")
        p.keys("Escape")
        p.wait(lambda t: "name of the phase to mark" not in t, "the prompt gone")
        time.sleep(1.5)  # a store tick: a mark set would be stored by now
        marks = env.d.ask({"op": "history", "pid": pid})["result"]["marks"]
        assert [m["name"] for m in marks] == ["phase one"]

        p.keys("Escape")
        p.wait(lambda t: "ramwatch top: " in t and "PID USER" in t, "the list again")
    finally:
        p.close()


def test_quit_restores_the_terminal(env):
    p = Pane(["bash", "--norc", "--noprofile"])
    try:
        p.keys("-l", f"{RAMWATCH} top --socket {env.d.socket} -d 300ms; echo top-exit=$?")
        p.keys("Enter")
        p.wait_text("PID USER")
        p.keys("q")
        p.wait_text("top-exit=0")
        p.keys("-l", "stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo")
        p.keys("Enter")
        screen = p.wait(lambda t: re.search(r"^(-?icanon|-?echo) (-?icanon|-?echo) ?$", t, re.M), "stty's answer")
        assert re.search(r"^icanon echo ?$", screen, re.M), screen
        assert "PID USER" not in screen  # the full screen is gone
        # Ctrl-C quits the same way
        p.keys("-l", f"clear; {RAMWATCH} top --socket {env.d.socket} -d 300ms; echo top-exit=$?")
        p.keys("Enter")
        p.wait_text("PID USER")
        p.keys("C-c")
        p.wait_text("top-exit=0")
        p.keys("-l", "stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo")
        p.keys("Enter")
        screen = p.wait(lambda t: re.search(r"^(-?icanon|-?echo) (-?icanon|-?echo) ?$", t, re.M), "stty's answer")
        assert re.search(r"^icanon echo ?$", screen, re.M), screen
    finally:
        p.close()


def test_no_daemon(tmp_path):
    sock = str(tmp_path / "none.sock")
    r = run("top", "--socket", sock, check=1)
    assert "is ramwatchd running?" in r.stderr and sock in r.stderr, r.stderr
    assert r.stdout == ""
    # in a terminal too: the message comes before the screen is taken
    p = Pane(["bash", "--norc", "--noprofile"])
    try:
        p.keys("-l", f"{RAMWATCH} top --socket {sock}; echo top-exit=$?")
        p.keys("Enter")
        screen = p.wait_text("top-exit=1")
        assert "is ramwatchd running?" in screen
    finally:
        p.close()


def test_options_and_once(env):
    r = run("top", "-d", "10ms", "--socket", env.d.socket, check=2)
    assert "--interval takes a duration from 100ms to 1h" in r.stderr and "not '10ms'" in r.stderr
    r = run("top", "--interval", "2 days", "--socket", env.d.socket, check=2)
    assert "not '2 days'" in r.stderr
    r = run("top", "--sort", "size", "--socket", env.d.socket, check=2)
    assert "--sort takes private, resident, peak, growth or vram" in r.stderr
    # without a terminal: a clear word, or one screen with --once
    r = run("top", "--socket", env.d.socket, check=1)
    assert "top needs a terminal" in r.stderr
    r = run("top", "--once", "--sort", "resident", "--socket", env.d.socket, check=0)
    pids = {env.big.pid, env.mid.pid, env.small.pid}
    assert r.stdout.startswith("ramwatch top: ") and "by resident" in r.stdout.splitlines()[0]
    assert order_of(r.stdout, pids) == [env.small.pid, env.big.pid, env.mid.pid], r.stdout


def test_unprivileged_user_sees_own_processes(env):
    p = Pane(["runuser", "-u", env.user, "--", RAMWATCH, "top", "--socket", env.d.socket, "-d", "300ms"])
    try:
        screen = p.wait(lambda t: order_of(t, {env.theirs.pid}) == [env.theirs.pid], "the user's holder")
        assert "(yours only)" in screen.splitlines()[0], screen
        listed = [int(r[0]) for r in rows(screen)]
        assert listed == [env.theirs.pid], screen
        assert next(r for r in rows(screen))[1] == env.user
        # marking is allowed on their own process
        p.keys("m")
        p.keys("-l", "mine")
        p.keys("Enter")
        p.wait_text(f"mark 'mine' set on pid {env.theirs.pid}")
        uid = pwd.getpwnam(env.user).pw_uid
        env.d.wait_for(lambda: [(m["name"], m["by_uid"]) for m in
                                env.d.ask({"op": "history", "pid": env.theirs.pid})["result"]["marks"]] == [("mine", uid)],
                       what="the user's mark stored")
    finally:
        p.close()


# A background colour (41 red .. 47 white), as capture-pane -e writes it.
BACKGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?4[1-7]m")


@pytest.mark.parametrize("env_vars,coloured", [(("TERM=screen",), True), (("TERM=screen", "NO_COLOR=1"), False),
                                               (("TERM=vt100",), False)])
def test_colours(env, env_vars, coloured):
    """Classes in colour where the terminal has colours, unless NO_COLOR
    is set; their letters tell them apart either way."""
    p = Pane([RAMWATCH, "top", "--socket", env.d.socket, "-d", "300ms"], env=env_vars)
    try:
        screen = p.wait(lambda t: "m malloc" in t and order_of(t, {env.big.pid}), "the legend")
        big = next(r for r in rows(screen) if int(r[0]) == env.big.pid)
        assert re.search(r"^m{12,}", big[6]), big
        legend = next(line for line in p.text(escapes=True).splitlines() if line.startswith("classes:"))
        assert bool(BACKGROUND.search(legend)) == coloured, repr(legend)
    finally:
        p.close()


def test_daemon_goes_away_and_comes_back(tmp_path, daemons):
    """The last line says why a refresh failed; the next that works clears it."""
    sock_dir = tempfile.mkdtemp(prefix="rwtop-", dir="/tmp")
    h = Holder(sock_dir, "rwhold-again")
    d = daemons(tmp_path, fast_config("Watch=name:rwhold-again"), socket=os.path.join(sock_dir, "ctl.sock"))
    d.start()
    p = Pane([RAMWATCH, "top", "--socket", d.socket, "-d", "200ms"])
    try:
        p.wait(lambda t: order_of(t, {h.pid}) == [h.pid], "the holder")
        assert d.stop() == 0
        screen = p.wait_text("is ramwatchd running?")
        assert order_of(screen, {h.pid}) == [h.pid]  # the last rows stay
        d.start()
        p.wait(lambda t: "is ramwatchd running?" not in t and "q quit" in t, "the message gone")
    finally:
        p.close()
        h.stop()
        shutil.rmtree(sock_dir, ignore_errors=True)


def test_sparkline_follows_the_stored_rows(tmp_path, daemons):
    """A process growing in three steps over a window of 20 s (a glyph a
    second): its sparkline rises from the lowest glyph to the highest, as
    the daemon's stored rows do."""
    sock_dir = tempfile.mkdtemp(prefix="rwtop-", dir="/tmp")
    h = Holder(sock_dir, "rwhold-grow")
    d = daemons(tmp_path, fast_config("Watch=name:rwhold-grow"), socket=os.path.join(sock_dir, "ctl.sock"))
    d.start()
    try:
        pid_row = d.process_id(h.pid)
        for step in range(3):
            d.wait_ticks(pid_row, d.ticks_stored(pid_row) + 2, what="two more store ticks")
            h.do("hold 32")
        d.wait_ticks(pid_row, d.ticks_stored(pid_row) + 2, what="the last step stored")
        p = Pane([RAMWATCH, "top", "--socket", d.socket, "-d", "200ms", "--window", "20s"])
        try:
            screen = p.wait(lambda t: order_of(t, {h.pid}) == [h.pid] and "LAST 20s" in t, "the holder")
            row = next(r for r in rows(screen) if int(r[0]) == h.pid)
            spark = row[6][21:41]  # after the bar and its blank
            glyphs = [g for g in spark if g != " "]
            assert glyphs[0] == "\u2581" and glyphs[-1] == "\u2588", repr(spark)
            # it never falls: each glyph at least the one before
            levels = ["\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588".index(g) for g in glyphs]
            assert levels == sorted(levels) and len(set(levels)) >= 3, repr(spark)
            # growth over the window: the three steps
            assert re.match(r"\+9\d\.\d MiB", row[5]), row
        finally:
            p.close()
    finally:
        h.stop()
        shutil.rmtree(sock_dir, ignore_errors=True)


def test_scrolling_and_resizing(env):
    """Two rows fit a terminal of 7 lines: End picks the last process and
    scrolls to it; a larger terminal shows every row again."""
    pids = {env.big.pid, env.mid.pid, env.small.pid, env.theirs.pid}
    p = Pane([RAMWATCH, "top", "--socket", env.d.socket, "-d", "300ms"], height=7)
    try:
        screen = p.wait(lambda t: len(order_of(t, pids)) == 2, "two rows")
        assert order_of(screen, pids) == [env.big.pid, env.mid.pid]
        assert screen.splitlines()[-1].startswith("q quit")
        p.keys("End")
        screen = p.wait(lambda t: order_of(t, pids) == [env.small.pid, env.theirs.pid], "the last two rows")
        p.keys("Home")
        p.wait(lambda t: order_of(t, pids) == [env.big.pid, env.mid.pid], "the first two again")
        subprocess.run([TMUX, "-S", p.server, "resize-window", "-t", "top", "-y", "20"], check=True)
        screen = p.wait(lambda t: len(order_of(t, pids)) == 4, "all four rows")
        assert screen.splitlines()[19].startswith("q quit"), screen
    finally:
        p.close()


HEADER = re.compile(r"^(\d+) process(?:es)?\s+([\d.]+ \S+)\s+([\d.]+ \S+)\s.*?\b(cgroup|unit) (.+)$")


def grouped(screen):
    """The list's lines in order: ("group", name, processes, private) for a
    group's header, ("process", pid, private) for a process."""
    out = []
    for line in screen.splitlines():
        h = HEADER.match(line)
        if h:
            out.append(("group", h.group(5), int(h.group(1)), h.group(2)))
            continue
        r = ROW.match(line)
        if r:
            out.append(("process", int(r.group(1)), r.group(3)))
    return out


@pytest.mark.skipif(os.geteuid() != 0, reason="making memory cgroups needs root")
def test_once_grouped_by_cgroup(tmp_path, daemons):
    """top --once --by cgroup: processes in two memory cgroups the test
    makes, each group under a line with its count and sums, the larger
    group first, its processes in the order's."""
    from test_oom_daemon import CONTROLLER, Groups
    if CONTROLLER is None:
        pytest.skip("no memory controller mounted (neither cgroup v1 nor v2 with memory)")
    groups = Groups()
    holders = []
    sock_dir = tempfile.mkdtemp(prefix="rwtop-", dir="/tmp")
    try:
        a, b = groups.make("a"), groups.make("b")
        for path, name, mib in ((a, "rwgrp-a1", 16), (a, "rwgrp-a2", 8), (b, "rwgrp-b", 48)):
            h = Holder(sock_dir, name)
            holders.append(h)
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(h.pid))
            h.do(f"hold {mib}")
        a1, a2, hb = holders
        d = daemons(tmp_path, fast_config("Watch=name:rwgrp-*"), socket=os.path.join(sock_dir, "ctl.sock"))
        d.start()
        want = {h.pid: groups.cg("a" if h is not hb else "b") for h in holders}

        def settled():
            ps = {p["pid"]: p for p in d.ask({"op": "processes"})["result"]["processes"]}
            return all(h.pid in ps and ps[h.pid]["cgroup"] == want[h.pid] and ps[h.pid]["private"] >= h.private() - MiB
                       for h in holders)
        d.wait_for(settled, what="the three watched in their cgroups")

        r = run("top", "--once", "--by", "cgroup", "--socket", d.socket, check=0)
        first = r.stdout.splitlines()[0]
        assert first.startswith("ramwatch top: 3 processes in 2 cgroups, by private"), r.stdout
        lines = grouped(r.stdout)
        assert [(l[0], l[1]) for l in lines] == [
            ("group", groups.cg("b")), ("process", hb.pid),
            ("group", groups.cg("a")), ("process", a1.pid), ("process", a2.pid)], r.stdout
        assert lines[0][2] == 1 and lines[2][2] == 2, r.stdout
        # a group's private memory is its processes' summed
        assert abs(size_of(lines[2][3]) - size_of(lines[3][2]) - size_of(lines[4][2])) <= 0.01 * size_of(lines[2][3])
        assert lines[0][3] == lines[1][2]
        # the order's key orders the groups: by resident as well
        r = run("top", "--once", "--by", "cgroup", "--sort", "resident", "--socket", d.socket, check=0)
        assert [l[1] for l in grouped(r.stdout) if l[0] == "group"] == [groups.cg("b"), groups.cg("a")], r.stdout
        # by unit: every process under some unit's line (the test's own
        # session names it, or none does)
        r = run("top", "--once", "--by", "unit", "--socket", d.socket, check=0)
        lines = grouped(r.stdout)
        assert lines and lines[0][0] == "group" and re.search(r" in \d+ units?, ", r.stdout.splitlines()[0]), r.stdout
        assert sorted(l[1] for l in lines if l[0] == "process") == sorted(h.pid for h in holders)
        r = run("top", "--once", "--by", "user", "--socket", d.socket, check=2)
        assert "--by takes none, cgroup or unit, not 'user'" in r.stderr
    finally:
        for h in holders:
            h.stop()
        groups.remove()
        shutil.rmtree(sock_dir, ignore_errors=True)
