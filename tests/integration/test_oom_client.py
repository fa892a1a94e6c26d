"""OOM kills and memory cgroups as the client shows them: a database
filled through the store as the daemon fills it (tests/tools/store-fill:
a process killed at its cgroup's limit with a census near it, a process
not watched killed when the machine ran out, a kill only counted, the
group's rows), a real ramwatchd serving it, and ramwatch asking as root
and as an unprivileged user."""
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import BUILD, DATA, run
from rwdaemon import Daemon, fast_config

STORE_FILL = os.path.join(BUILD, "tests", "tools", "store-fill")
SMAPS = os.path.join(DATA, "smaps", "java17-g1.smaps")
STATUS = os.path.join(DATA, "smaps", "java17-g1.status")
MiB = 1 << 20

# the keys of a kill in `ramwatch oom --format json`, and of its census
KILL_KEYS = ["time", "pid", "comm", "uid", "cgroup", "limit_cgroup", "constraint", "limit", "usage", "kernel",
             "census"]
KERNEL_KEYS = ["total_vm", "anon_rss", "file_rss", "shmem_rss", "pgtables", "oom_score_adj"]
CENSUS_KEYS = ["id", "time", "private", "classes"]


@pytest.fixture
def served(tmp_path):
    """A daemon on a database of kills and a cgroup; the owner of the
    killed process is uid 1000 unless the test says otherwise."""
    started = []
    sockdir = tempfile.mkdtemp(prefix="rw-oom-", dir="/tmp")
    os.chmod(sockdir, 0o755)

    def start(uid=1000):
        state = tmp_path / "state"
        state.mkdir()
        now = int(time.time() * 1000)
        subprocess.run([STORE_FILL, str(state / "ramwatch.db"), SMAPS, STATUS, str(now), str(uid)], check=True)
        # watching nothing: what the answers hold is the file's
        d = Daemon(tmp_path, fast_config("Watch=pid:2147483000"), socket=os.path.join(sockdir, "ctl.sock"))
        started.append(d)
        d.start()
        return d, now

    yield start
    for d in started:
        d.stop(signal.SIGKILL)
    shutil.rmtree(sockdir, ignore_errors=True)


def rw(d, *args, **kw):
    return run(*args, "--socket", d.socket, **kw)


def test_oom_json_shape(served):
    d, now = served()
    out = json.loads(rw(d, "oom", "--format", "json", check=0).stdout)
    assert list(out) == ["kills"]
    kills = out["kills"]
    assert [k["pid"] for k in kills] == [None, 5151, 4242]  # newest first
    for k in kills:
        assert list(k) == KILL_KEYS
    grow = kills[2]
    assert grow["comm"] == "grow" and grow["uid"] == 1000
    assert grow["constraint"] == "memcg"
    assert grow["cgroup"] == "/test.slice/grow.service"
    assert grow["limit_cgroup"] == "/test.slice"
    assert grow["limit"] == 200 * MiB and grow["usage"] == 200 * MiB - 8192
    # times in unix seconds, as every --format json of the client
    assert grow["time"] == pytest.approx((now - 10000) / 1000)
    assert list(grow["kernel"]) == KERNEL_KEYS
    assert grow["kernel"]["anon_rss"] == 190 * MiB
    census = grow["census"]
    assert list(census) == CENSUS_KEYS
    # the census taken near the limit, 2 s before the kill, not the first
    assert census["time"] == pytest.approx((now - 12000) / 1000)
    assert census["private"] == sum(c["private"] for c in census["classes"])
    assert census["classes"][0]["class"] == "runtime_heap"
    assert [c["private"] for c in census["classes"]] == sorted((c["private"] for c in census["classes"]),
                                                               reverse=True)
    # the machine ran out: no limit, no census (never watched)
    hog = kills[1]
    assert hog["constraint"] == "none" and hog["limit_cgroup"] is None and hog["census"] is None
    assert hog["kernel"]["pgtables"] is None
    # counted only: nothing but its time
    assert all(kills[0][key] is None for key in KILL_KEYS if key != "time")


def test_oom_table_csv_and_filters(served):
    d, now = served()
    table = rw(d, "oom", check=0).stdout.splitlines()
    assert table[0].split()[:4] == ["TIME", "PID", "COMM", "UID"]
    assert len(table) == 4
    assert "(counted only)" in table[1]
    assert "the machine" in table[2]
    assert "/test.slice" in table[3] and "200 MiB" in table[3]

    csv = rw(d, "oom", "--format", "csv", check=0).stdout.splitlines()
    header = csv[0].split(",")
    assert header[:4] == ["time", "pid", "comm", "uid"] and "census_private" in header
    row = dict(zip(header, csv[3].split(",")))
    assert row["pid"] == "4242" and row["limit"] == str(200 * MiB) and row["anon_rss"] == str(190 * MiB)

    # the group whose limit was hit, or the victim's own, or above them
    for group, pids in [("/test.slice", [4242]), ("/test.slice/grow.service", [4242]), ("/system.slice", [5151]),
                        ("/test", [])]:
        out = json.loads(rw(d, "oom", "--cgroup", group, "--format", "json", check=0).stdout)
        assert [k["pid"] for k in out["kills"]] == pids, group
    out = json.loads(rw(d, "oom", "--since", "@%d" % ((now - 7000) // 1000), "--format", "json", check=0).stdout)
    assert [k["pid"] for k in out["kills"]] == [None, 5151]
    assert rw(d, "oom", "--cgroup", "test.slice").returncode == 2
    assert rw(d, "oom", "--since", "now", "--until", "1h").returncode == 2


def test_cgroups_and_history(served):
    d, now = served()
    table = rw(d, "cgroups", check=0).stdout.splitlines()
    assert table[0].split()[:3] == ["CGROUP", "USAGE", "LIMIT"]
    assert table[1].split()[:7] == ["grow.service", "160", "MiB", "200", "MiB", "40.0", "MiB"]
    # 1 MiB/s over the last minute, 40 MiB left: 40 s
    assert "+1.00 MiB" in table[1] and " 40s " in table[1]
    g = json.loads(rw(d, "cgroups", "--format", "json", check=0).stdout)["cgroups"][0]
    assert g["path"] == "/test.slice/grow.service" and g["unit"] == "grow.service" and g["version"] == 2
    assert g["usage"] == 160 * MiB and g["limit"] == 200 * MiB and g["headroom"] == 40 * MiB
    assert g["growth_per_s"] == MiB and g["time_to_limit_ms"] == 40000
    assert g["processes_private"] == 120 * MiB and g["beyond_processes"] == 40 * MiB

    by_unit = rw(d, "history", "--unit", "grow.service", check=0).stdout.splitlines()
    by_path = rw(d, "history", "--cgroup", "/test.slice/grow.service", check=0).stdout.splitlines()
    assert by_unit == by_path
    assert len(by_unit) == 1 + 7
    assert by_unit[-1].split()[2:4] == ["160", "MiB"]
    rows = json.loads(rw(d, "history", "--unit", "grow.service", "--format", "json", check=0).stdout)["samples"]
    assert [r["usage"] for r in rows] == [(100 + 10 * i) * MiB for i in range(7)]
    r = rw(d, "history", "--unit", "nothing.service")
    assert r.returncode == 1 and "no cgroup of unit nothing.service" in r.stderr
    assert rw(d, "history", "--unit", "grow.service", "--pid", "1").returncode == 2


def test_report_ends_with_the_kill(served):
    d, now = served()
    report = rw(d, "report", "--pid", "4242", check=0).stdout
    tail = report[report.index("## Killed for memory"):]
    assert "at the memory limit of cgroup `/test.slice`: 200 MiB used of 200 MiB" in tail
    assert "Its own cgroup: `/test.slice/grow.service`" in tail
    assert "| runtime_heap |" in tail
    # the census near the limit says why it was taken, there and as the
    # last census
    assert "Its last census before it died, at " in tail
    assert ", taken as its group neared its memory limit: " in tail
    assert ", taken as its memory cgroup neared its limit, or the host ran short of memory." in report
    trend = report[report.index("## RAM after each census"):report.index("## Killed for memory")]
    assert [line.split("|")[3].strip() for line in trend.splitlines() if line.startswith("| #")] == \
        ["first", "limit"]
    # nothing follows it
    assert "\n## " not in tail[3:]


def test_unprivileged_user_sees_own_kills(served, unprivileged_user):
    uid = pwd.getpwnam(unprivileged_user).pw_uid
    d, now = served(uid)
    r = run("oom", "--socket", d.socket, "--format", "json", user=unprivileged_user, check=0)
    kills = json.loads(r.stdout)["kills"]
    assert [k["pid"] for k in kills] == [4242]
    r = run("oom", "--socket", d.socket, user=unprivileged_user, check=0)
    assert "only the kills of your own processes" in r.stderr
    # the groups' figures are the kernel's, which any user reads; the sums
    # of the processes in them are not theirs to see
    g = json.loads(run("cgroups", "--socket", d.socket, "--format", "json", user=unprivileged_user,
                       check=0).stdout)["cgroups"][0]
    assert g["usage"] == 160 * MiB
    assert g["processes_private"] is None and g["beyond_processes"] is None
