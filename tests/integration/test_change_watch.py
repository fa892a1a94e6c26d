"""The change watch: with it (ChangeWatch=yes, the default) a sample round
reads statm only of the processes the kernel names, and the rows stored are
those a daemon reading every process every round stores.  Two real daemons
follow one real process (tests/helpers/steady.c) through changes the
kernel confirms; a daemon denied CAP_BPF says why and reads every round."""
import os
import time

from conftest import HELPERS
from rwdaemon import fast_config
from test_steady_census import Steady

PAGE = os.sysconf("SC_PAGESIZE")
WATCHING = "reading statm only of processes the kernel's change events name"
UNABLE = "the kernel's change events (BPF on rss_stat and mmap_lock_released) cannot be used"


def statm_resident(pid):
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE


def last_row(d, pid_row, t_ms):
    """The last row of the process that holds a sample taken after t_ms +
    300 ms (rows coalesce: one may span from before the change)."""
    rows = d.wait_rows("SELECT * FROM samples WHERE process_id = ? AND resolution = 0 AND until > ?"
                       " ORDER BY time DESC LIMIT 1", pid_row, t_ms + 300, what="a row after the change")
    return rows[0]


def test_rows_match_a_daemon_that_reads_every_round(tmp_path, daemons):
    steady = Steady()
    for sub in ("on", "off"):
        (tmp_path / sub).mkdir()
    try:
        on = daemons(tmp_path / "on", fast_config(f"Watch=pid:{steady.pid}")).start()
        off = daemons(tmp_path / "off", fast_config(f"Watch=pid:{steady.pid}", "ChangeWatch=no")).start()
        on.wait_for(lambda: WATCHING in on.logs(), what="the change watch's start")
        assert WATCHING not in off.logs() and UNABLE not in off.logs()
        rows = {d: d.process_id(steady.pid) for d in (on, off)}
        for change in ("nop", "touch", "map", "unmap", "map"):
            before = statm_resident(steady.pid)
            steady.do(change)
            t = time.time() * 1000
            resident = statm_resident(steady.pid)
            if change in ("touch", "map"):
                assert resident - before == PAGE, change
            # a second of rows after the change: both daemons saw it
            time.sleep(1)
            got = {d: last_row(d, rows[d], t) for d in (on, off)}
            for d, r in got.items():
                assert r["resident_last"] == resident, (change, d.dir, r)
                assert r["resident_min"] <= resident <= r["resident_max"]
            assert got[on]["private_last"] == got[off]["private_last"], change
            assert got[on]["swap_last"] == got[off]["swap_last"], change
        # it went on watching: no self-check fired
        assert "did not say so" not in on.logs()
    finally:
        steady.stop()


def test_without_cap_bpf_every_process_is_read(tmp_path, daemons):
    steady = Steady()
    try:
        # root without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN: no BPF
        d = daemons(tmp_path, fast_config(f"Watch=pid:{steady.pid}"),
                    wrap=("setpriv", "--bounding-set=-bpf,-perfmon,-sys_admin", "--")).start()
        d.wait_for(lambda: UNABLE in d.logs(), what="the notice that the watch cannot run")
        assert WATCHING not in d.logs()
        pid_row = d.process_id(steady.pid)
        before = statm_resident(steady.pid)
        steady.do("touch")
        t = time.time() * 1000
        assert statm_resident(steady.pid) - before == PAGE
        assert last_row(d, pid_row, t)["resident_last"] == statm_resident(steady.pid)
    finally:
        steady.stop()
