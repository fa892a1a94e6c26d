"""What an unprivileged user may scan: their own processes, not others'
(the kernel's ptrace access check), with a message saying what is needed."""
import json
import os
import subprocess
import time

from conftest import RAMWATCH, run


def test_other_users_process_is_refused(unprivileged_user, shapes):
    r = run("scan", shapes.pid, user=unprivileged_user, check=1)
    assert f"permission denied reading /proc/{shapes.pid}/smaps" in r.stderr
    assert "belongs to uid 0" in r.stderr and "CAP_SYS_PTRACE (root) or uid 0" in r.stderr
    assert r.stdout == ""


def test_own_process_is_allowed(unprivileged_user):
    p = subprocess.Popen(["runuser", "-u", unprivileged_user, "--", "sleep", "300"])
    try:
        pid = None
        for _ in range(100):
            out = subprocess.run(["pgrep", "-u", unprivileged_user, "-x", "sleep"], capture_output=True, text=True)
            if out.stdout.strip():
                pid = int(out.stdout.split()[0])
                break
            time.sleep(0.05)
        assert pid
        c = json.loads(run("scan", pid, "--json", user=unprivileged_user, check=0).stdout)
        uid = int(subprocess.run(["id", "-u", unprivileged_user], capture_output=True, text=True).stdout)
        assert c["process"]["uid"] == uid and c["process"]["comm"] == "sleep"
        assert sum(k["private"] for k in c["classes"]) == c["totals"]["private"]
        # without a pid: root's larger processes are passed over, saying why
        r = run("scan", "--json", user=unprivileged_user, check=0)
        assert json.loads(r.stdout)["process"]["uid"] == uid
        assert "passed over" in r.stderr and "permission denied" in r.stderr
    finally:
        p.kill()
        p.wait()
        subprocess.run(["pkill", "-KILL", "-u", unprivileged_user], capture_output=True)
