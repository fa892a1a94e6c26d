"""ramwatch scan's GPU memory, without a GPU: the stand-in NVML and CUDA
driver libraries (tests/gpu-standin, built in $RAMWATCH_BUILD/gpu-standin)
answer from a script that lists a real process, so the whole path runs:
loading the libraries, the snapshot, the census's "gpu" section, the JSON,
the table, a saved census.  And the host without a driver: a one-line note,
and the scan succeeds."""
import json
import os
import subprocess

import pytest

from conftest import BUILD, RAMWATCH

STANDIN = os.path.join(BUILD, "gpu-standin")
GiB = 1024 ** 3

A100 = "GPU-11111111-2222-3333-4444-555555555555 85899345920 4294967296 NVIDIA A100-SXM4-80GB"
L4 = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee 24152899584 0 NVIDIA L4"


@pytest.fixture
def target():
    """A real process, listed in the scripts by its pid."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc.pid
    proc.kill()
    proc.wait()


def ramwatch(*args, script=None, nvml=None, cuda=None, tmp_path=None, check=0):
    """Runs ramwatch with the stand-ins (or the given libraries) and a script."""
    env = dict(os.environ)
    env["RAMWATCH_NVML_LIBRARY"] = nvml or os.path.join(STANDIN, "libnvidia-ml.so.1")
    env["RAMWATCH_CUDA_LIBRARY"] = cuda or os.path.join(STANDIN, "libcuda.so.1")
    env.pop("RAMWATCH_STANDIN_SCRIPT", None)
    if script is not None:
        path = tmp_path / "script"
        path.write_text(script)
        env["RAMWATCH_STANDIN_SCRIPT"] = str(path)
    r = subprocess.run([RAMWATCH, *map(str, args)], capture_output=True, text=True, env=env, timeout=60)
    if check is not None:
        assert r.returncode == check, f"{args}: exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
    return r


def test_scan_json_shows_vram(target, tmp_path):
    script = f"device {A100}\ndevice {L4}\ncompute 0 {target} 3221225472\ngraphics 1 {target} na\n" \
             f"compute 1 1 1024\n"
    c = json.loads(ramwatch("scan", target, "--json", script=script, tmp_path=tmp_path).stdout)
    gpu = c["gpu"]
    assert gpu["state"] == "ok" and gpu["message"] is None
    assert gpu["driver_version"] == 12040
    assert gpu["nvidia_mapped"] is False  # a sleep maps no /dev/nvidia*
    assert gpu["devices"] == [
        {"index": 0, "uuid": "GPU-11111111-2222-3333-4444-555555555555", "name": "NVIDIA A100-SXM4-80GB",
         "used": 3 * GiB, "total": 80 * GiB, "graphics": False},
        {"index": 1, "uuid": "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "name": "NVIDIA L4",
         "used": None, "total": 24152899584, "graphics": True},
    ]
    # the census itself is unchanged by the section: classes still add up
    assert sum(k["private"] for k in c["classes"]) == c["totals"]["private"]


def test_scan_table_and_saved_census(target, tmp_path):
    script = f"device {A100}\ncompute 0 {target} 1073741824\n"
    out = tmp_path / "census.json"
    r = ramwatch("scan", target, "--out", out, script=script, tmp_path=tmp_path)
    assert "GPU memory (device memory this process holds, from NVML; CUDA 12.4)" in r.stdout
    assert "NVIDIA A100-SXM4-80GB" in r.stdout and "1.00 GiB" in r.stdout
    # the saved census keeps the section; summary shows it without NVML
    s = ramwatch("summary", out, nvml="/nonexistent/libnvidia-ml.so.1")
    assert "NVIDIA A100-SXM4-80GB" in s.stdout and "1.00 GiB" in s.stdout
    assert json.loads(ramwatch("summary", out, "--json").stdout)["gpu"]["devices"][0]["used"] == GiB


def test_process_without_gpu(target, tmp_path):
    script = f"device {A100}\ncompute 0 1 1073741824\n"
    c = json.loads(ramwatch("scan", target, "--json", script=script, tmp_path=tmp_path).stdout)
    assert c["gpu"]["state"] == "ok" and c["gpu"]["devices"] == []
    r = ramwatch("scan", target, script=script, tmp_path=tmp_path)
    assert "GPU" not in r.stdout  # nothing to say about a process that uses no GPU
    r = ramwatch("scan", target, "--gpu", script=script, tmp_path=tmp_path)
    assert "GPU memory: NVML lists no device memory held by this process" in r.stdout


def test_no_driver(target, tmp_path):
    none = dict(nvml="/nonexistent/libnvidia-ml.so.1", cuda="/nonexistent/libcuda.so.1")
    r = ramwatch("scan", target, "--gpu", **none)
    assert r.stdout.count("no NVIDIA driver: GPU memory not shown\n") == 1
    assert "Memory by class" in r.stdout and r.stderr == ""
    # not asked, and no NVIDIA device mapped: nothing said
    r = ramwatch("scan", target, **none)
    assert "NVIDIA" not in r.stdout
    c = json.loads(ramwatch("scan", target, "--json", **none).stdout)
    assert c["gpu"]["state"] == "no_library"
    assert "/nonexistent/libnvidia-ml.so.1" in c["gpu"]["message"]
    assert c["gpu"]["devices"] == []


def test_no_nvml_but_the_cuda_library(target, tmp_path):
    c = json.loads(ramwatch("scan", target, "--json", script=f"device {A100}\ndevice {L4}\n", tmp_path=tmp_path,
                            nvml="/nonexistent/libnvidia-ml.so.1").stdout)
    assert c["gpu"]["state"] == "no_library"
    assert "the CUDA driver lists 2 devices" in c["gpu"]["message"]
    assert c["gpu"]["driver_version"] == 12040


def test_nvml_errors_are_states(target, tmp_path):
    # NVML that will not start: said once, the scan succeeds
    r = ramwatch("scan", target, "--gpu", script=f"device {A100}\nfail nvmlInit_v2 9\n", tmp_path=tmp_path,
                 cuda="/nonexistent/libcuda.so.1")
    assert "GPU memory not shown: NVML did not start (nvmlInit_v2): Driver Not Loaded\n" in r.stdout
    # no device
    c = json.loads(ramwatch("scan", target, "--json", script="", tmp_path=tmp_path).stdout)
    assert c["gpu"]["state"] == "no_devices"
    # a device that falls off the bus: the other one still answers
    script = f"device {A100}\ndevice {L4}\nlost 1 0\ncompute 0 {target} 4096\ncompute 1 {target} 8192\n"
    c = json.loads(ramwatch("scan", target, "--json", script=script, tmp_path=tmp_path).stdout)
    assert [d["index"] for d in c["gpu"]["devices"]] == [0]
    assert c["gpu"]["state"] == "ok"


def test_gpu_options(target, tmp_path):
    c = json.loads(ramwatch("scan", target, "--json", "--no-gpu").stdout)
    assert c["gpu"] is None
    assert ramwatch("scan", target, "--gpu", "--no-gpu", check=2).stderr.startswith("ramwatch: ")
    smaps = os.path.join(os.path.dirname(__file__), "..", "data", "smaps", "synthetic-cuda-pytorch.smaps")
    assert ramwatch("scan", "--smaps", smaps, "--gpu", check=2).returncode == 2
    # a saved smaps file has no GPU section
    assert json.loads(ramwatch("scan", "--smaps", smaps, "--json").stdout)["gpu"] is None
    assert "--no-gpu" in ramwatch("scan", "--help").stdout


def test_default_libraries_need_a_driver_device(target):
    """Without a library named, NVML and the CUDA driver are looked for
    only where a device file of the driver exists: elsewhere the search of
    the library path could only fail, and the census says so instead."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAMWATCH_")}
    r = subprocess.run([RAMWATCH, "scan", str(target), "--json"], capture_output=True, text=True, env=env,
                       timeout=60, check=True)
    gpu = json.loads(r.stdout)["gpu"]
    if not any(os.path.exists(d) for d in ("/dev/nvidiactl", "/dev/dxg")):
        assert gpu["state"] == "no_library"
        assert gpu["message"] == "none of /dev/nvidiactl, /dev/dxg exists; NVML not looked for"
    else:  # a host with the driver: the libraries were looked for
        assert gpu["message"] is None or "not looked for" not in gpu["message"]
    r = subprocess.run([RAMWATCH, "scan", str(target), "--gpu"], capture_output=True, text=True, env=env,
                       timeout=60, check=True)
    assert "Memory by class" in r.stdout and r.stderr == ""
