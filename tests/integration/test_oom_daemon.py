"""OOM kills through the real daemon: processes the tests start in memory
cgroups they make grow into a limit and the kernel kills them; the daemon
records each kill once, with the limit, the usage and the kernel's
figures, links it to a census it took as the group neared its limit, and
counts the kills its sources missed (while it was down).

Needs root and a memory controller (cgroup v1, or v2 with memory in its
root's cgroup.controllers); skipped, saying why, elsewhere.  Every group
a test makes is below one parent of its own, emptied (its processes
killed) and removed when the test ends, failed or not."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from rwdaemon import fast_config

MiB = 1 << 20
LIMIT = 200 * MiB

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="making memory cgroups and OOM kills needs root")


def memory_controller():
    """(version, mount point) of the memory controller, or None."""
    v2 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if rfields[0] == "cgroup" and "memory" in rfields[2].split(","):
                return 1, fields[4]
            if rfields[0] == "cgroup2" and v2 is None:
                v2 = fields[4]
    if v2:
        try:
            with open(os.path.join(v2, "cgroup.controllers")) as f:
                if "memory" in f.read().split():
                    return 2, v2
        except OSError:
            pass
    return None


CONTROLLER = memory_controller()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


class Groups:
    """Memory cgroups below one parent of the test's own."""

    def __init__(self):
        self.version, self.mount = CONTROLLER
        self.name = f"rw-it-oom-{os.getpid()}-{random.randrange(1 << 30):x}"
        self.root = os.path.join(self.mount, self.name)
        os.mkdir(self.root)
        if self.version == 2:
            write(os.path.join(self.root, "cgroup.subtree_control"), "+memory")

    def path(self, rel=""):
        return os.path.join(self.root, rel) if rel else self.root

    def cg(self, rel=""):
        """The group as the daemon and the kernel name it: below the mount."""
        return "/" + os.path.relpath(self.path(rel), self.mount)

    def make(self, rel, limit=None):
        p = self.path(rel)
        os.makedirs(p, exist_ok=True)
        if self.version == 2 and os.listdir(p):
            try:
                write(os.path.join(p, "cgroup.subtree_control"), "+memory")
            except OSError:
                pass
        if limit is not None:
            self.set_limit(rel, limit)
        return p

    def set_limit(self, rel, limit):
        p = self.path(rel)
        if self.version == 1:
            write(os.path.join(p, "memory.limit_in_bytes"), str(limit))
        else:
            write(os.path.join(p, "memory.max"), str(limit))
            try:
                write(os.path.join(p, "memory.swap.max"), "0")
            except OSError:
                pass

    def oom_kills(self, rel=""):
        """The kernel's count of OOM kills in the group (v1: its own)."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        for line in read(os.path.join(self.path(rel), name)).splitlines():
            k, _, v = line.partition(" ")
            if k == "oom_kill":
                return int(v)
        return 0

    def pids(self):
        out = []
        for d, _, _ in os.walk(self.root):
            try:
                out += [int(x) for x in read(os.path.join(d, "cgroup.procs")).split()]
            except OSError:
                pass
        return out

    def remove(self):
        """Kills what is left in the groups and removes them, deepest first."""
        deadline = time.time() + 10
        while time.time() < deadline:
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        for d, _, _ in sorted(os.walk(self.root), key=lambda x: -x[0].count("/")):
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


@pytest.fixture
def groups():
    if CONTROLLER is None:
        pytest.skip("no memory controller mounted (neither cgroup v1 nor v2 with memory)")
    g = Groups()
    try:
        yield g
    finally:
        g.remove()


# The process that grows: it joins its group, says so, waits for the
# word, then touches 10 MiB every GROW_STEP_S until the kernel kills it.
GROWER = r"""
import os, sys, time
write = lambda p, t: open(p, "w").write(t)
write(sys.argv[1], str(os.getpid()))
print("in", flush=True)
sys.stdin.readline()
chunks = []
step, pause = int(sys.argv[2]), float(sys.argv[3])
i = 0
while True:
    chunks.append(bytes([i % 255 + 1]) * step)
    i += 1
    time.sleep(pause)
"""

GROW_STEP = 8 * MiB
GROW_STEP_S = 0.1  # about 80 MiB/s
# Where a test checks the census before death: about 20 MiB/s, so that
# the 10 % of the limit between the first share (NearLimit=90%) and the
# kill last a second, time for the census (10 to 30 ms, a few hundred
# under a busy machine's load); at 80 MiB/s the second share's census
# (97 %) is often cut short by the kill (status "exited"), as it may be
# for a user.
NEAR = dict(step=2 * MiB)


class Grower:
    def __init__(self, tmp, group_path, name="rwoomgrow", step=GROW_STEP, pause=GROW_STEP_S):
        # the daemon watches by name: a link to the interpreter gives the
        # process its own comm
        exe = os.path.join(str(tmp), name)
        if not os.path.exists(exe):
            os.symlink(os.path.realpath(sys.executable), exe)
        # in its group before it runs, as systemd and container runtimes
        # start a process (the daemon may follow it the moment it execs)
        procs = os.path.join(group_path, "cgroup.procs")
        self.proc = subprocess.Popen(["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, exe, "-c", GROWER, procs,
                                      str(step), str(pause)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout.readline().strip() == b"in"
        self.pid = self.proc.pid

    def grow(self):
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.flush()

    def wait(self, timeout=30):
        return self.proc.wait(timeout=timeout)


def oom_config(name="rwoomgrow", extra=""):
    # no census at growth below 1 GiB: the censuses before death are the
    # limit's own, not growth's that happened to come near the end
    return fast_config(watch=f"Watch=name:{name}", extra=extra).replace("CensusOnGrowth=32M 5%",
                                                                        "CensusOnGrowth=1G 100%")


def kills(d):
    """The kills of the tests' growers (the machine is shared: another
    program's kill is recorded too, and is no business of these tests)."""
    return d.query("SELECT * FROM oom_kills WHERE comm = 'rwoomgrow' ORDER BY id")


def wait_watched(d, pid):
    """Until the daemon watches pid and took its first census."""
    d.wait_for(lambda: d.query("SELECT c.id FROM censuses c JOIN processes p ON p.id = c.process_id "
                               "WHERE p.pid = ? AND c.status = 'ok'", pid), what=f"a census of {pid}", timeout=20)


def kill_in(tmp, groups, rel, d=None, **kw):
    """Starts a grower in the group rel, lets it grow until it is killed;
    returns its pid."""
    g = Grower(tmp, groups.path(rel), **kw)
    if d is not None:
        wait_watched(d, g.pid)
    g.grow()
    rc = g.wait()
    assert rc == -signal.SIGKILL, f"the grower ended with {rc}, not killed"
    return g.pid


def limit_census(d, kill):
    """The census before death of the victim of kill (a row of oom_kills):
    its latest census of trigger 'limit' at or before the kill that
    completed (the kill may cut the last one short)."""
    rows = d.query("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'limit' AND status = 'ok' "
                   "AND time <= ? ORDER BY time DESC LIMIT 1", kill["process_id"], kill["time"])
    assert rows, f"no census at the limit before the kill of {kill['pid']}"
    return rows[0]


def test_killed_three_times_each_recorded_with_a_census_near_the_limit(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config()).start()
    status = d.ask({"op": "status"})["result"]
    assert status["oom"]["sources"]["kmsg"]["active"], status["oom"]
    assert status["oom"]["sources"]["counter"]["active"], status["oom"]
    bpf = status["oom"]["sources"]["bpf"]["active"]

    pids = [kill_in(tmp_path, groups, "box", d, **NEAR) for _ in range(3)]
    assert groups.oom_kills("box") == 3

    rows = d.wait_rows("SELECT * FROM oom_kills WHERE comm = 'rwoomgrow' ORDER BY id", n=3, timeout=20,
                       what="three OOM kills")
    assert [r["pid"] for r in rows] == pids  # each once, in order
    for r in rows:
        assert r["comm"] == "rwoomgrow"
        assert r["uid"] == 0
        assert r["oom_constraint"] == "memcg"
        assert r["cgroup"] == groups.cg("box") and r["limit_cgroup"] == groups.cg("box")
        assert r["limit_hit"] == LIMIT
        assert 0.9 * LIMIT <= r["usage"] <= LIMIT
        assert r["anon_rss"] > 0.6 * LIMIT and r["total_vm"] >= r["anon_rss"]
        assert set(r["sources"].split(",")) == ({"bpf", "kmsg"} if bpf else {"kmsg"})
        assert r["process_id"] is not None
        # its last sample: a fast-tier row of the victim at or before the kill
        assert r["sample_time"] is not None and r["sample_time"] <= r["time"]
        assert d.query("SELECT 1 FROM samples WHERE process_id = ? AND time <= ?", r["process_id"], r["time"])
        # the census before death: taken as the group neared its limit,
        # before the kill, linked to it, and stored as such
        assert r["census_id"] is not None, r
        c = d.query("SELECT * FROM censuses WHERE id = ?", r["census_id"])[0]
        assert c["process_id"] == r["process_id"] and c["time"] <= r["time"]
        assert c["private"] >= 0.6 * LIMIT, (c["private"], r)
        assert limit_census(d, r)["private"] >= 0.6 * LIMIT
        assert c["trigger"] == "limit", c  # no census at growth: the last is the limit's
    # what a person reads of the last victim says why its census was taken
    client = os.path.join(os.environ.get("RAMWATCH_BUILD", "build"), "ramwatch")
    report = subprocess.run([client, "--socket", d.socket, "report", "--pid", str(pids[-1])], capture_output=True,
                            text=True)
    assert ", taken as its group neared its memory limit: " in report.stdout, report.stdout + report.stderr
    history = subprocess.run([client, "--socket", d.socket, "history", "--pid", str(pids[-1]), "--format", "json"],
                             capture_output=True, text=True)
    assert "limit" in [c["trigger"] for c in json.loads(history.stdout)["censuses"]], history.stdout[-2000:]
    log = d.logs()
    assert f"memory cgroup {groups.cg('box')} at" in log
    # the group's timeline: its limit and its processes' memory beside
    # its usage
    g = d.wait_rows("SELECT s.* FROM cgroup_samples s JOIN cgroups g ON g.id = s.cgroup_id WHERE g.path = ?",
                    groups.cg("box"), what="a sample of the group")
    assert g[0]["limit_applies"] == LIMIT
    status = d.ask({"op": "status"})["result"]
    assert status["oom"]["kills"]["memcg"] == 3
    assert status["cgroups"]["version"] == groups.version
    out = subprocess.run([os.path.join(os.environ.get("RAMWATCH_BUILD", "build"), "ramwatch"), "--socket",
                          d.socket, "status"], capture_output=True, text=True)
    assert "OOM kills" in out.stdout and "active" in out.stdout, out.stdout + out.stderr
    # what a user reads: each kill with its group, the limit it hit, the
    # kernel's figures and the census before death by class; the group
    # with its limit, its headroom and what it is charged beyond its
    # processes
    kills_json = subprocess.run([client, "--socket", d.socket, "oom", "--format", "json"], capture_output=True,
                                text=True)
    assert kills_json.returncode == 0, kills_json.stderr
    ours = [k for k in json.loads(kills_json.stdout)["kills"] if k["pid"] in pids]
    assert sorted(k["pid"] for k in ours) == sorted(pids)
    for k in ours:
        assert k["comm"] == "rwoomgrow" and k["constraint"] == "memcg"
        assert k["cgroup"] == groups.cg("box") and k["limit_cgroup"] == groups.cg("box")
        assert k["limit"] == LIMIT and 0.9 * LIMIT <= k["usage"] <= LIMIT
        assert k["kernel"]["anon_rss"] > 0.6 * LIMIT
        assert k["census"] is not None and k["census"]["private"] >= 0.6 * LIMIT, k
        assert k["census"]["classes"], k
    table = subprocess.run([client, "--socket", d.socket, "oom"], capture_output=True, text=True)
    assert table.returncode == 0 and "rwoomgrow" in table.stdout, table.stdout + table.stderr
    cgroups = subprocess.run([client, "--socket", d.socket, "cgroups", "--format", "json"], capture_output=True,
                             text=True)
    assert cgroups.returncode == 0, cgroups.stderr
    box = {g["path"]: g for g in json.loads(cgroups.stdout)["cgroups"]}[groups.cg("box")]
    assert box["limit"] == LIMIT
    assert box["headroom"] == box["limit"] - box["usage"]
    assert "beyond_processes" in box


def test_a_parents_limit(tmp_path, daemons, groups):
    groups.make("top", LIMIT)
    groups.make("top/child")
    d = daemons(tmp_path, oom_config()).start()
    pid = kill_in(tmp_path, groups, "top/child", d, **NEAR)
    r = d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the kill")[0]
    assert r["limit_cgroup"] == groups.cg("top")
    assert r["cgroup"] == groups.cg("top/child")
    assert r["limit_hit"] == LIMIT
    assert r["census_id"] is not None
    c = d.query("SELECT private, trigger FROM censuses WHERE id = ?", r["census_id"])[0]
    assert c["private"] >= 0.6 * LIMIT
    assert limit_census(d, r)["private"] >= 0.6 * LIMIT


def test_an_unwatched_victim(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config(name="rwnothing")).start()
    pid = kill_in(tmp_path, groups, "box")
    r = d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the kill")[0]
    assert r["process_id"] is None and r["census_id"] is None
    assert r["comm"] == "rwoomgrow" and r["limit_hit"] == LIMIT


def test_a_burst_of_kills(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config()).start()
    growers = [Grower(tmp_path, groups.path("box"), step=4 * MiB, pause=0.02) for _ in range(6)]
    for g in growers:
        wait_watched(d, g.pid)
    for g in growers:
        g.grow()
    deadline = time.time() + 60
    # the kernel kills until the rest fit; what is left is killed at the end
    while time.time() < deadline and any(g.proc.poll() is None for g in growers):
        time.sleep(0.2)
        if groups.oom_kills("box") >= 4:
            break
    killed = groups.oom_kills("box")
    assert killed >= 2
    d.wait_rows("SELECT * FROM oom_kills WHERE comm = 'rwoomgrow'", n=killed, timeout=20, what=f"{killed} kills")
    time.sleep(3)
    rows = kills(d)
    assert len(rows) == groups.oom_kills("box") or len(rows) == killed
    assert len({r["pid"] for r in rows}) == len(rows)  # each once
    assert all(r["pid"] in {g.pid for g in growers} for r in rows)
    # the group neared its limit with six watched processes in it: a census
    # of the largest three (RW_NEAR_LIMIT_CENSUSES), not of all
    assert "a census of its 3 largest watched processes now" in d.logs()
    assert "a census of its 4 largest" not in d.logs() and "a census of its 6 largest" not in d.logs()


def test_kill_minus_nine_is_no_oom_kill(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config()).start()
    g = Grower(tmp_path, groups.path("box"))
    wait_watched(d, g.pid)
    os.kill(g.pid, signal.SIGKILL)
    g.wait()
    # an OOM kill after it, so the daemon is seen to have looked
    pid = kill_in(tmp_path, groups, "box", d)
    d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the OOM kill")
    time.sleep(2.5)  # past the pairing's grace
    assert [r["pid"] for r in kills(d)] == [pid]


def test_a_kill_while_the_daemon_was_down_is_counted(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config()).start()
    first = kill_in(tmp_path, groups, "box", d)
    d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", first, what="the first kill")
    assert d.stop() == 0
    kill_in(tmp_path, groups, "box")
    d.start()
    rows = d.wait_rows("SELECT * FROM oom_kills WHERE comm = 'rwoomgrow' OR sources = 'counter' ORDER BY id", n=2,
                       what="the missed kill, counted")
    missed = [r for r in rows if r["sources"] == "counter"]
    assert len(missed) >= 1, rows
    # its details are unknown; other kills on the machine may be counted too
    assert missed[0]["pid"] is None and missed[0]["comm"] is None and missed[0]["limit_hit"] is None
    assert [r["pid"] for r in rows if r["sources"] != "counter"] == [first]
    # counted once: not again at the next ticks
    time.sleep(2.5)
    assert len(d.query("SELECT * FROM oom_kills WHERE sources = 'counter'")) == len(missed)


def test_the_kernel_log_alone(tmp_path, daemons, groups):
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config(extra="[OOM]\nOOMWatch=no\n")).start()
    status = d.ask({"op": "status"})["result"]
    assert not status["oom"]["sources"]["bpf"]["active"]
    assert status["oom"]["sources"]["bpf"]["why"] == "OOMWatch=no"
    pid = kill_in(tmp_path, groups, "box", d)
    r = d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the kill")[0]
    assert r["sources"] == "kmsg"
    assert r["cgroup"] == groups.cg("box") and r["limit_hit"] == LIMIT
    assert r["census_id"] is not None


def test_a_process_new_to_its_group_is_watched_near_the_limit_at_once(tmp_path, daemons, groups):
    # no store tick between the process's start and its kill: the limit
    # of its group is watched from the moment it is followed
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config().replace("StoreInterval=1s", "StoreInterval=1h")).start()
    g = Grower(tmp_path, groups.path("box"), **NEAR)
    d.wait_for(lambda: f"watching process {g.pid} (rwoomgrow)" in d.logs(), what="the grower followed",
               timeout=10)
    time.sleep(0.5)
    g.grow()
    assert g.wait() == -signal.SIGKILL
    time.sleep(2.5)  # the pairing's grace
    assert d.stop() == 0  # the last store cycle writes what was gathered
    r = d.query("SELECT * FROM oom_kills WHERE pid = ?", g.pid)
    assert len(r) == 1, d.logs()[-3000:]
    assert r[0]["census_id"] is not None
    c = d.query("SELECT private, trigger FROM censuses WHERE id = ?", r[0]["census_id"])[0]
    assert c["private"] >= 0.6 * LIMIT
    assert limit_census(d, r[0])["private"] >= 0.6 * LIMIT


def test_a_read_only_cgroup_file_system_is_polled(tmp_path, daemons, groups):
    # as under the packaged unit (ProtectControlGroups=yes): the usage
    # thresholds cannot be registered, the usage is polled, the census
    # before death is taken all the same
    if groups.version != 1:
        pytest.skip("the usage thresholds are cgroup v1's; v2 is always polled")
    ro = ("unshare", "--mount", "--propagation", "private", "sh", "-c",
          f"mount --bind {groups.mount} {groups.mount} && mount -o remount,bind,ro {groups.mount} && exec \"$@\"",
          "--")
    groups.make("box", LIMIT)
    d = daemons(tmp_path, oom_config(), wrap=ro).start()
    pid = kill_in(tmp_path, groups, "box", d, **NEAR)
    r = d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the kill")[0]
    assert r["census_id"] is not None
    c = d.query("SELECT private, trigger FROM censuses WHERE id = ?", r["census_id"])[0]
    assert c["private"] >= 0.6 * LIMIT
    assert limit_census(d, r)["private"] >= 0.6 * LIMIT
    near = d.ask({"op": "status"})["result"]["cgroups"]["near_limit"]
    assert near["thresholds"] == 0 and near["told"] >= 1, near
    assert "memory cgroups near their limits are polled" in d.logs()


def test_the_oom_watch_alone(tmp_path, daemons, groups):
    # the groups named from the ids the watch gives (their directories'
    # inodes); the kernel's figures, which only the log has, unknown
    groups.make("top", LIMIT)
    groups.make("top/child")
    d = daemons(tmp_path, oom_config(extra="[OOM]\nKernelLog=no\n")).start()
    bpf = d.ask({"op": "status"})["result"]["oom"]["sources"]["bpf"]
    if not bpf["active"]:
        pytest.skip(f"the OOM watch cannot be loaded here: {bpf['why']}")
    pid = kill_in(tmp_path, groups, "top/child", d)
    r = d.wait_rows("SELECT * FROM oom_kills WHERE pid = ?", pid, what="the kill")[0]
    assert r["sources"] == "bpf"
    assert r["cgroup"] == groups.cg("top/child") and r["limit_cgroup"] == groups.cg("top")
    assert r["limit_hit"] == LIMIT and r["usage"] >= 0.9 * LIMIT
    assert r["comm"] == "rwoomgrow" and r["uid"] == 0
    assert r["total_vm"] is None and r["anon_rss"] is None
    assert r["census_id"] is not None


def test_processes_by_cgroup_and_unit(tmp_path, daemons, groups):
    """processes --by cgroup and --by unit: the watched processes in each
    memory cgroup, their memory summed; a group named like a systemd
    service names its unit."""
    groups.make("a.slice/web.service")
    groups.make("b")
    procs = []
    try:
        for rel in ("a.slice/web.service", "a.slice/web.service", "b"):
            procs.append(Grower(tmp_path, groups.path(rel)))
        d = daemons(tmp_path, oom_config()).start()
        for g in procs:
            wait_watched(d, g.pid)
        exe = os.path.join(os.environ.get("RAMWATCH_BUILD", "build"), "ramwatch")

        def ask(*args):
            r = subprocess.run([exe, "--socket", d.socket, "processes", *args], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            return r.stdout

        listed = {p["pid"]: p for p in json.loads(ask("--format", "json"))["processes"]}
        web, other = groups.cg("a.slice/web.service"), groups.cg("b")
        for g, cg in zip(procs, (web, web, other)):
            assert listed[g.pid]["cgroup"] == cg
        assert listed[procs[0].pid]["unit"] == "web.service"
        assert listed[procs[2].pid]["unit"] is None

        by = json.loads(ask("--by", "cgroup", "--format", "json"))
        assert by["by"] == "cgroup"
        found = {g["cgroup"]: g for g in by["groups"]}
        assert sorted(found[web]["pids"]) == sorted(p.pid for p in procs[:2])
        assert found[web]["processes"] == 2 and found[other]["processes"] == 1
        assert found[web]["private"] == sum(listed[p.pid]["private"] for p in procs[:2])
        units = {g["unit"]: g for g in json.loads(ask("--by", "unit", "--format", "json"))["groups"]}
        assert units["web.service"]["processes"] == 2
        table = ask("--by", "unit")
        assert table.splitlines()[0].split()[:2] == ["UNIT", "PROCESSES"]
        assert any(line.startswith("web.service ") for line in table.splitlines())
        bad = subprocess.run([exe, "--socket", d.socket, "processes", "--by", "user"], capture_output=True, text=True)
        assert bad.returncode == 2 and "--by takes cgroup or unit" in bad.stderr
    finally:
        for g in procs:
            g.proc.kill()
            g.proc.wait()
