"""GPU memory in the daemon, without a GPU: the stand-in NVML and CUDA
driver libraries (tests/gpu-standin, built in $RAMWATCH_BUILD/gpu-standin)
answer from a script that lists real processes (sleeps) with known device
memory, and the daemon, which keeps NVML open, reads the script again when
a test replaces it.  So the whole path runs: the snapshot every
StoreInterval, the device rows and the processes' rows, the growth census
when a process's VRAM grows, history, report, processes, census, metrics;
a device that stops answering and comes back; and the host without a
driver, where nothing changes but one line in the log."""
import csv
import io
import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import BUILD, run
from rwdaemon import fast_config

STANDIN = os.path.join(BUILD, "gpu-standin")
GiB = 1024 ** 3
A100 = "GPU-11111111-2222-3333-4444-555555555555"
L4 = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def devices(l4_lost=False):
    """Two GPUs: an A100 (80 GiB, 4 GiB used) and an L4 (which may be lost)."""
    return (f"device {A100} 85899345920 4294967296 NVIDIA A100-SXM4-80GB\n"
            f"device {L4} 24152899584 1073741824 NVIDIA L4\n" + ("lost 1 0\n" if l4_lost else ""))


def write_script(path, text):
    """Replaces the script whole, as script.h asks: the daemon never reads
    it half written, and sees another file."""
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


@pytest.fixture
def sleeps():
    """Real processes for the script to list by pid."""
    procs = [subprocess.Popen(["sleep", "600"]) for _ in range(3)]
    yield [p.pid for p in procs]
    for p in procs:
        p.kill()
        p.wait()


def gpu_daemon(daemons, tmp_path, pids, script, extra_env=None):
    """A daemon watching pids, with the stand-ins and script (text)."""
    path = tmp_path / "gpu-script"
    write_script(path, script)
    env = {"RAMWATCH_NVML_LIBRARY": os.path.join(STANDIN, "libnvidia-ml.so.1"),
           "RAMWATCH_CUDA_LIBRARY": os.path.join(STANDIN, "libcuda.so.1"),
           "RAMWATCH_STANDIN_SCRIPT": str(path),
           "RAMWATCH_STANDIN_LOG": str(tmp_path / "standin.log")}
    env.update(extra_env or {})
    watch = "\n".join(f"Watch=pid:{pid}" for pid in pids)
    d = daemons(tmp_path, fast_config(watch), env=env).start()
    return d, path


def ramwatch(d, *args):
    return run(*args, "--socket", d.socket, check=0)


def gpu_lines(logs):
    return [line for line in logs.splitlines() if re.search(r"GPU|NVIDIA|NVML", line)]


def test_vram_rows_and_answers(daemons, tmp_path, sleeps):
    pid = sleeps[0]
    d, script = gpu_daemon(daemons, tmp_path, [pid], devices() + f"compute 0 {pid} 1073741824\n")

    # told once what was found
    d.wait_for(lambda: "GPU memory sampled" in d.logs(), what="the GPU line")
    [line] = gpu_lines(d.logs())
    assert line.startswith("<6>NVIDIA GPU memory sampled every StoreInterval (CUDA 12.4): 2 GPUs: "
                           f"GPU 0 (NVIDIA A100-SXM4-80GB, {A100}), GPU 1 (NVIDIA L4, {L4})")

    # every StoreInterval: each device, the process's VRAM beside its samples
    process_id = d.process_id(pid)
    d.wait_rows("SELECT * FROM gpu_samples", n=3, what="GPU memory rows")
    gpus = d.query("SELECT uuid, name, device_index, total FROM gpus ORDER BY device_index")
    assert gpus == [{"uuid": A100, "name": "NVIDIA A100-SXM4-80GB", "device_index": 0, "total": 80 * GiB},
                    {"uuid": L4, "name": "NVIDIA L4", "device_index": 1, "total": 24152899584}]
    rows = d.query("SELECT g.uuid, d.present, d.used FROM gpu_devices d JOIN gpus g ON g.id = d.gpu_id")
    assert {(r["uuid"], r["present"], r["used"]) for r in rows} == {(A100, 1, 4 * GiB), (L4, 1, GiB)}
    samples = d.query("SELECT g.process_id, g.time, g.used_last, g.used_max, s.time AS sample_time"
                      " FROM gpu_samples g JOIN gpus x ON x.id = g.gpu_id"
                      " LEFT JOIN samples s ON s.process_id = g.process_id AND s.resolution = g.resolution"
                      "  AND s.time = g.time WHERE x.uuid = ?", A100)
    assert all(r["process_id"] == process_id and r["used_last"] == GiB for r in samples)
    # at the time of the process's samples row, so readers find them together
    assert sum(r["sample_time"] is not None for r in samples) >= len(samples) - 1
    # the first census carries its GPU section
    [first] = d.wait_rows("SELECT id, gpu_state, gpu_driver_version, nvidia_mapped FROM censuses"
                          " WHERE trigger = 'first' AND status = 'ok'")
    assert (first["gpu_state"], first["gpu_driver_version"], first["nvidia_mapped"]) == ("ok", 12040, 0)
    assert d.query("SELECT used FROM census_gpu WHERE census_id = ?", first["id"]) == [{"used": GiB}]

    # the VRAM grows by 1 GiB: a growth census, its section with the new figure
    write_script(script, devices() + f"compute 0 {pid} 2147483648\n")
    [growth] = d.wait_rows("SELECT id FROM censuses WHERE trigger = 'growth' AND status = 'ok'",
                           what="a census for the VRAM's growth")
    assert d.query("SELECT used FROM census_gpu WHERE census_id = ?", growth["id"]) == [{"used": 2 * GiB}]
    assert "(sleep, growth of GPU memory): ok" in d.logs()
    d.wait_rows("SELECT * FROM processes WHERE pid = ? AND peak_vram = ?", pid, 2 * GiB, what="the peak")
    d.wait_rows("SELECT * FROM gpu_samples WHERE used_last = ?", 2 * GiB, n=2, what="rows of 2 GiB")
    # one growth census, not one per interval
    time.sleep(2)
    assert len(d.query("SELECT id FROM censuses WHERE trigger = 'growth'")) == 1

    # history: the columns, per row and at the censuses
    r = ramwatch(d, "history", "--pid", pid)
    header = r.stdout.splitlines()[1]
    assert header.split() == ["TIME", "PRIVATE", "PRIVATE", "MAX", "RESIDENT", "RESIDENT", "MAX", "VRAM", "VRAM",
                              "MAX"]
    assert re.search(r"1\.00 GiB +1\.00 GiB\n", r.stdout) and re.search(r"2\.00 GiB +2\.00 GiB\n", r.stdout)
    assert "(growth): private " in r.stdout and ", VRAM 2.00 GiB" in r.stdout
    r = ramwatch(d, "history", "--pid", pid, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    # the GPU columns come after the sample counters, whichever they are
    header = r.stdout.splitlines()[0].split(",")
    assert header.index("vram") > header.index("swap") and header.index("vram_max") == header.index("vram") + 1
    assert any(row["kind"] == "sample" and row["vram"] == row["vram_max"] == str(2 * GiB) for row in rows), rows
    history = json.loads(ramwatch(d, "history", "--pid", pid, "--format", "json").stdout)
    assert {s["vram"] for s in history["samples"]} <= {None, GiB, 2 * GiB}
    assert {c["vram"] for c in history["censuses"]} == {GiB, 2 * GiB}

    # report: the peak and when, the last census's section by device
    report = json.loads(ramwatch(d, "report", "--pid", pid, "--format", "json").stdout)
    assert report["peak"]["vram"] == 2 * GiB and report["peak"]["vram_time"] is not None
    assert report["process"]["vram"] == 2 * GiB and report["process"]["peak_vram"] == 2 * GiB
    assert [t["vram"] for t in report["trend"]] == [GiB, 2 * GiB]
    gpu = report["last_census"]["gpu"]
    assert gpu["state"] == "ok" and gpu["driver_version"] == 12040
    assert gpu["devices"] == [{"index": 0, "uuid": A100, "name": "NVIDIA A100-SXM4-80GB", "used": 2 * GiB,
                               "total": 80 * GiB, "graphics": False}]
    text = ramwatch(d, "report", "--pid", pid).stdout
    assert "Peak GPU memory (VRAM) **2.00 GiB** at " in text
    assert "| 0 | NVIDIA A100-SXM4-80GB | 2.00 GiB | 80.0 GiB | compute | " + A100 + " |" in text

    # processes: the column, and sorted by it
    text = ramwatch(d, "processes", "--sort", "vram").stdout
    assert text.splitlines()[0].split()[:8] == ["PID", "USER", "PRIVATE", "RESIDENT", "PEAK", "PRIVATE", "VRAM",
                                                "LAST"]
    assert "2.00 GiB" in text.splitlines()[1]
    [p] = json.loads(ramwatch(d, "processes", "--format", "json").stdout)["processes"]
    assert (p["vram"], p["peak_vram"]) == (2 * GiB, 2 * GiB)

    # the census op gives the section too
    census = d.ask({"op": "census", "pid": pid})["result"]
    assert census["gpu"]["devices"][0]["used"] == 2 * GiB

    # metrics: the group on the device, the devices
    text = ramwatch(d, "metrics").stdout
    assert f'ramwatch_gpu_memory_bytes{{group="sleep",device="{A100}"}} {2 * GiB}\n' in text
    assert f'ramwatch_gpu_device_memory_bytes{{device="{A100}",kind="total"}} {80 * GiB}\n' in text
    assert f'ramwatch_gpu_device_memory_bytes{{device="{L4}",kind="used"}} {GiB}\n' in text
    assert f'ramwatch_gpu_device_up{{device="{L4}"}} 1\n' in text
    assert f'ramwatch_gpu_device_info{{device="{L4}",index="1",name="NVIDIA L4"}} 1\n' in text

    # nothing it did was a warning
    assert not [line for line in d.logs().splitlines() if line.startswith(("<3>", "<4>"))]
    assert d.stop() == 0


def test_one_process_list_call_per_device(daemons, tmp_path, sleeps):
    """Three processes on two devices: each snapshot asks each device once
    for its process list, whatever the number of processes."""
    script = devices() + "".join(f"compute {i % 2} {pid} {GiB}\n" for i, pid in enumerate(sleeps))
    d, _ = gpu_daemon(daemons, tmp_path, sleeps, script)
    d.wait_rows("SELECT DISTINCT time FROM gpu_devices", n=4, what="four snapshots")
    assert d.stop() == 0
    snapshots = len(d.query("SELECT DISTINCT time FROM gpu_devices"))
    with open(tmp_path / "standin.log") as f:
        calls = [line.strip() for line in f if "RunningProcesses" in line]
    compute = [c for c in calls if "Compute" in c]
    # the one at start, then one per StoreInterval (the last at the stop)
    assert snapshots * 2 <= len(compute) <= (snapshots + 1) * 2, (snapshots, len(compute))
    assert len(calls) == 2 * len(compute)  # and the graphics list beside each
    rows = d.query("SELECT process_id, count(*) AS n FROM gpu_samples GROUP BY process_id")
    assert len(rows) == 3 and all(r["n"] >= 3 for r in rows)


def test_device_vanishes_and_returns(daemons, tmp_path, sleeps):
    pid = sleeps[0]
    on_both = f"compute 0 {pid} 1073741824\ncompute 1 {pid} 536870912\n"
    d, script = gpu_daemon(daemons, tmp_path, [pid], devices() + on_both)
    d.wait_rows("SELECT * FROM gpu_samples", n=4, what="rows on both devices")

    # the L4 falls off the bus: told once, its rows say so, the rest goes on
    write_script(script, devices(l4_lost=True) + on_both)
    lost = f"GPU 1 (NVIDIA L4, {L4}) does not answer"
    d.wait_for(lambda: lost in d.logs(), what="the device lost")
    d.wait_rows("SELECT d.* FROM gpu_devices d JOIN gpus g ON g.id = d.gpu_id WHERE g.uuid = ? AND d.present = 0",
                L4, n=3, what="rows of the device that does not answer")
    assert d.logs().count(lost) == 1
    assert d.query("SELECT count(*) AS n FROM gpu_devices d JOIN gpus g ON g.id = d.gpu_id"
                   " WHERE g.uuid = ? AND d.present = 0 AND (d.used IS NOT NULL OR d.error IS NULL)", L4)[0]["n"] == 0
    assert f'ramwatch_gpu_device_up{{device="{L4}"}} 0\n' in ramwatch(d, "metrics").stdout
    t = d.query("SELECT max(time) AS t FROM gpu_devices")[0]["t"]
    # the A100's rows and the process's there go on; on the L4 it has none
    d.wait_rows("SELECT * FROM gpu_samples g JOIN gpus x ON x.id = g.gpu_id WHERE x.uuid = ? AND g.time > ?",
                A100, t, n=2, what="rows on the A100")
    assert not d.query("SELECT * FROM gpu_samples g JOIN gpus x ON x.id = g.gpu_id WHERE x.uuid = ? AND g.time > ?",
                       L4, t)
    assert d.alive()

    # back: told once, rows again
    write_script(script, devices() + on_both)
    back = f"GPU 1 (NVIDIA L4, {L4}) answers again"
    d.wait_for(lambda: back in d.logs(), what="the device back")
    t = d.query("SELECT max(time) AS t FROM gpu_devices")[0]["t"]
    d.wait_rows("SELECT * FROM gpu_samples g JOIN gpus x ON x.id = g.gpu_id WHERE x.uuid = ? AND g.time > ?",
                L4, t, n=1, what="rows on the L4 again")
    logs = d.logs()
    assert logs.count(back) == 1 and logs.count(lost) == 1
    assert [line for line in logs.splitlines() if line.startswith("<4>")] == [f"<4>{lost} (nvmlDeviceGetMemoryInfo: "
                                                                            "GPU is lost): its memory is not sampled"
                                                                            " until it does"]
    assert d.stop() == 0


@pytest.mark.parametrize("case", ["no_driver", "no_device"])
def test_without_gpus_nothing_changes(daemons, tmp_path, sleeps, case):
    """No driver (or a driver that sees no GPU): one line at info, and no
    GPU rows, columns, families or sections anywhere."""
    pid = sleeps[0]
    if case == "no_driver":
        env = {"RAMWATCH_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
               "RAMWATCH_CUDA_LIBRARY": "/nonexistent/libcuda.so.1"}
        d = daemons(tmp_path, fast_config(f"Watch=pid:{pid}"), env=env).start()
        expected = "<6>no NVIDIA driver (cannot load NVML: /nonexistent/libnvidia-ml.so.1"
    else:
        d, _ = gpu_daemon(daemons, tmp_path, [pid], "")
        expected = "<6>NVML sees no NVIDIA GPU: GPU memory not sampled"
    d.wait_rows("SELECT * FROM censuses WHERE status = 'ok'", what="a census")
    d.wait_for(lambda: len(d.tick_times()) >= 3, what="three store ticks of samples")
    [line] = gpu_lines(d.logs())
    assert line.startswith(expected) and line.endswith(": GPU memory not sampled")

    for table in ("gpus", "gpu_devices", "gpu_samples", "census_gpu"):
        assert d.query(f"SELECT count(*) AS n FROM {table}")[0]["n"] == 0, table
    assert d.query("SELECT count(*) AS n FROM censuses WHERE gpu_state IS NOT NULL")[0]["n"] == 0
    assert "VRAM" not in ramwatch(d, "history", "--pid", pid).stdout
    assert "vram" not in ramwatch(d, "history", "--pid", pid, "--format", "csv").stdout
    assert "VRAM" not in ramwatch(d, "processes").stdout
    assert "vram" not in ramwatch(d, "processes", "--format", "csv").stdout
    report = ramwatch(d, "report", "--pid", pid).stdout
    assert "VRAM" not in report and "GPU" not in report
    assert json.loads(ramwatch(d, "report", "--pid", pid, "--format", "json").stdout)["last_census"]["gpu"] is None
    assert "gpu" not in ramwatch(d, "metrics").stdout
    # a reload does not say it again
    d.kill(signal.SIGHUP)
    d.wait_for(lambda: "configuration reloaded" in d.logs(), what="the reload")
    assert len(gpu_lines(d.logs())) == 1
    assert d.stop() == 0
