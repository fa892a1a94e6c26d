"""ramwatchd end to end: a real daemon, a real database, real processes
whose memory shapes are known (the shapes helper)."""
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import MiB, start_shapes, stop
from rwdaemon import Daemon, fast_config


def test_timeline_of_a_watched_process(tmp_path, shapes, daemons):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    pid_row = d.process_id(shapes.pid)
    proc = d.query("SELECT * FROM processes WHERE id = ?", pid_row)[0]
    assert proc["comm"] == "shapes" and proc["exe"].endswith("/shapes") and proc["exited_at"] is None
    assert proc["start_time"] > 0 and len(proc["boot_id"]) == 36
    # every process's history: not readable by other users
    assert os.stat(d.db_path).st_mode & 0o777 == 0o640

    # the first census, with its classes; the shapes are where they belong
    first = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'first'", pid_row)[0]
    assert first["status"] == "ok" and first["light"] == 0
    assert first["wall_us"] > 0 and first["cpu_us"] >= 0 and first["bytes_read"] > 0
    classes = {r["class"]: r for r in d.query("SELECT * FROM census_classes WHERE census_id = ?", first["id"])}
    for key in ("stacks", "malloc", "images", "mapped_files", "shared"):
        assert key in classes, classes.keys()
    assert sum(r["private"] for r in classes.values()) == first["private"]
    assert d.query("SELECT count(*) AS n FROM census_regions WHERE census_id = ?", first["id"])[0]["n"] > 0
    files = d.query("SELECT p.path FROM census_files f JOIN paths p ON p.id = f.path_id WHERE census_id = ?",
                    first["id"])
    assert any(f["path"].endswith("/shapes") for f in files)

    # fast-tier rows: min <= last <= max, several samples each
    d.wait_ticks(pid_row, 2)
    rows = d.query("SELECT * FROM samples WHERE process_id = ? AND resolution = 0", pid_row)
    for r in rows:
        assert r["private_min"] <= r["private_last"] <= r["private_max"]
        assert r["resident_min"] <= r["resident_last"] <= r["resident_max"]
        assert r["samples"] >= 5

    # growth: the helper maps and touches 64 MiB, over CensusOnGrowth=32M
    shapes.proc.send_signal(signal.SIGUSR1)
    grown = shapes.read_until("growth")
    growth = d.wait_rows("SELECT * FROM censuses WHERE process_id = ? AND trigger = 'growth'", pid_row,
                         what="a growth census")[0]
    # the census may catch the helper still touching its 64 MiB: what the
    # trigger promises is the threshold, CensusOnGrowth=32M
    assert growth["status"] == "ok" and growth["private"] - first["private"] >= 32 * MiB
    other = lambda cid: d.query("SELECT private FROM census_classes WHERE census_id = ? AND class = 'other'",
                                cid)[0]["private"]
    assert other(growth["id"]) - other(first["id"]) >= 32 * MiB
    # ... and the region that appeared is a region event of that census
    events = d.query("SELECT * FROM region_events WHERE census_id = ? AND kind = 'appeared'", growth["id"])
    start = int(grown["start"], 16)
    assert any((e["start"] & (2**64 - 1)) == start and e["class"] == "other" and e["size"] >= 64 * MiB
               for e in events), events

    # the exit and its time
    stop(shapes.proc)
    killed_at = time.time() * 1000
    proc = d.wait_for(lambda: (lambda r: r if r["exited_at"] else None)(
        d.query("SELECT * FROM processes WHERE id = ?", pid_row)[0]), what="the exit time")
    assert abs(proc["exited_at"] - killed_at) < 1500
    assert proc["peak_private"] >= first["private"] + 63 * MiB  # the fast tier saw all 64 MiB
    assert "watching" in d.status()
    assert d.stop() == 0
    assert "STOPPING=1" in d.notices


def test_a_spike_between_rows_is_in_the_max(tmp_path, shapes, daemons):
    """A 128 MiB spike held 0.5 s: longer than SampleInterval (100 ms),
    shorter than StoreInterval (2 s): the stored max has it, and the rows
    around it do not end on it."""
    cfg = fast_config(f"Watch=pid:{shapes.pid}").replace("StoreInterval=1s", "StoreInterval=2s")
    d = daemons(tmp_path, cfg).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_rows("SELECT * FROM samples WHERE process_id = ?", pid_row, n=1)
    base = d.query("SELECT max(private_max) AS m FROM samples WHERE process_id = ?", pid_row)[0]["m"]
    shapes.proc.send_signal(signal.SIGUSR2)
    shapes.read_until("spike")
    shapes.read_until("spike_released")
    time.sleep(0.3)
    rows = d.wait_rows("SELECT * FROM samples WHERE process_id = ? AND private_max >= ?", pid_row,
                       base + 128 * MiB, what="a row holding the spike")
    spike_row = rows[0]
    assert spike_row["private_max"] - spike_row["private_min"] >= 120 * MiB
    # a later row after the release is back at the base
    d.wait_rows("SELECT * FROM samples WHERE process_id = ? AND time > ? AND private_max < ?", pid_row,
                spike_row["time"], base + 16 * MiB, what="a row after the spike")


def test_reload_good_and_bad(tmp_path, shapes, daemons):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_rows("SELECT * FROM samples WHERE process_id = ?", pid_row)

    d.write_config(fast_config(f"Watch=pid:{shapes.pid}").replace("SampleInterval=100ms", "SampleInterval=200ms"))
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: "SampleInterval: 100ms -> 200ms" in d.logs(), what="the change logged")

    d.write_config(fast_config(f"Watch=pid:{shapes.pid}") + "SampleInterval=soon\n")
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: "reload refused" in d.logs(), what="the refusal logged")
    log = d.logs()
    assert "ramwatchd.conf:" in log.split("reload refused")[1].splitlines()[0]
    # still running, on the configuration it had: rows still arrive
    n = d.ticks_stored(pid_row)
    d.wait_ticks(pid_row, n + 2)
    assert d.alive()

    # a reload that stops watching the process lets it go
    d.write_config(fast_config("Watch=pid:1"))
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: "no longer matches" in d.logs(), what="the process let go")


def test_sigterm_and_kill9(tmp_path, shapes, daemons):
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    pid_row = d.process_id(shapes.pid)
    d.wait_ticks(pid_row, 3)
    assert d.stop(signal.SIGTERM) == 0
    con = sqlite3.connect(d.db_path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()

    d.start()
    d.wait_ticks(pid_row, 6)
    before = d.ticks_stored(pid_row)
    assert d.stop(signal.SIGKILL) != 0
    after_kill = sqlite3.connect(d.db_path)
    assert after_kill.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    after_kill.close()
    assert d.ticks_stored(pid_row) >= before

    d.start()
    d.wait_ticks(pid_row, before + 3)
    # the same instance continues under the same row; no second row for it
    assert len(d.query("SELECT * FROM processes WHERE pid = ?", shapes.pid)) == 1


def test_a_reused_pid_is_another_process(tmp_path, daemons):
    cmd = ["python3", "-c", "import sys; b = bytearray(8 << 20); sys.stdin.read()"]
    d = daemons(tmp_path, fast_config("Watch=cmdline:*bytearray(8*")).start()
    first = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    pid = first.pid
    d.process_id(pid)
    first.stdin.close()
    first.wait()
    # ask the kernel for the same pid again
    second = None
    for _ in range(50):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE)
        if p.pid == pid:
            second = p
            break
        p.stdin.close()
        p.wait()
    if second is None:
        pytest.skip("the kernel did not hand out the same pid again")
    try:
        rows = d.wait_rows("SELECT * FROM processes WHERE pid = ? ORDER BY id", pid, n=2, what="two instances")
        assert rows[0]["start_time"] != rows[1]["start_time"]
        assert rows[0]["exited_at"] is not None and rows[1]["exited_at"] is None
        d.wait_rows("SELECT * FROM censuses WHERE process_id = ?", rows[1]["id"])
    finally:
        second.stdin.close()
        second.wait()


def test_huge_processes_get_light_censuses(tmp_path, shapes, daemons):
    """Above HugeProcess resident, a census reads maps and smaps_rollup only:
    exact totals, class sizes, and no per-class memory (NULL, not zero)."""
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}", extra="HugeProcess=1M")).start()
    pid_row = d.process_id(shapes.pid)
    c = d.wait_rows("SELECT * FROM censuses WHERE process_id = ?", pid_row)[0]
    assert c["status"] == "ok" and c["light"] == 1
    assert c["private"] > 0 and c["resident"] > 0 and c["regions"] > 10
    classes = d.query("SELECT * FROM census_classes WHERE census_id = ?", c["id"])
    assert classes and all(k["private"] is None and k["size"] > 0 for k in classes)
    assert sum(k["count"] for k in classes) == c["regions"]


def test_a_low_descriptor_limit_still_samples_every_process(tmp_path, daemons):
    """With a descriptor limit too low for statm kept open for every
    watched process, the later ones are sampled from status alone: every
    process is followed and has rows.  Statm comes before a pidfd: with
    MaxProcesses (1024) processes' directories and statm not fitting, no
    process keeps a pidfd (its exit is seen at the next sample)."""
    import shutil
    binary = tmp_path / "rw-fdlimit"
    shutil.copy("/bin/sleep", binary)
    d = daemons(tmp_path, fast_config("Watch=name:rw-fdlimit")).start()
    in_use = len(os.listdir(f"/proc/{d.pid}/fd"))
    count = 100
    # six short of two each (the directory, statm): statm is given up
    # RW_FD_RESERVE (32) below the limit, and the processes after that fit
    # in one each
    limit = in_use + 2 * count - 6
    subprocess.run(["prlimit", f"--pid={d.pid}", f"--nofile={limit}:{limit}"], check=True)
    procs = [subprocess.Popen([str(binary), "300"]) for _ in range(count)]
    try:
        for p in procs:
            pid_row = d.process_id(p.pid)
            rows = d.wait_rows("SELECT * FROM samples WHERE process_id = ? AND samples >= 5", pid_row,
                               what=f"rows of process {p.pid}")
            assert rows[0]["resident_last"] > 0
        status_only = [p.pid for p in procs if f"statm of process {p.pid} open, reading status only" in d.logs()]
        assert 0 < len(status_only) < count, status_only
        # the process sampled from status alone has the figures of one from statm
        kept = [p.pid for p in procs if p.pid not in status_only][0]
        last = lambda pid: d.query("SELECT resident_last FROM samples WHERE process_id = ? ORDER BY time DESC"
                                   " LIMIT 1", d.process_id(pid))[0]["resident_last"]
        assert abs(last(status_only[0]) - last(kept)) < 1 * MiB
        assert len(os.listdir(f"/proc/{d.pid}/fd")) < limit
        assert d.alive()
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_a_burst_of_censuses_is_written_before_the_store_tick(tmp_path, daemons):
    """The first censuses of 300 processes queue more than
    RW_WRITER_EARLY_BYTES (1 MiB): the census pass writes them as they come
    instead of holding them for the StoreInterval (an hour here), which was
    the daemon's peak of resident memory."""
    import shutil
    binary = tmp_path / "rw-early"
    shutil.copy("/bin/sleep", binary)
    config = fast_config("Watch=name:rw-early").replace("StoreInterval=1s", "StoreInterval=1h")
    d = daemons(tmp_path, config).start()
    procs = [subprocess.Popen([str(binary), "300"]) for _ in range(300)]
    try:
        # most of them written, long before the hour (the rest, under
        # 1 MiB, wait for the store tick)
        d.wait_for(lambda: d.query("SELECT count(*) AS n FROM censuses")[0]["n"] >= 150,
                   what="censuses written before the store tick", timeout=60)
        assert d.alive()
        # no sample row yet: only the store tick writes those
        assert d.query("SELECT count(*) AS n FROM samples")[0]["n"] == 0
    finally:
        for p in procs:
            p.kill()
            p.wait()
