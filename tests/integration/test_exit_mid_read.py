"""A process killed while its smaps is read: the kernel ends the file early
without an error; ramwatch must say the process exited, never print a
census of part of it."""
import json
import os
import random
import signal
import subprocess
import time

from conftest import HELPERS, RAMWATCH

REGIONS = 60000


def test_killed_while_read():
    random.seed(1)
    outcomes = {"complete": 0, "exited": 0, "gone": 0}
    for attempt in range(40):
        target = subprocess.Popen([os.path.join(HELPERS, "many-maps"), str(REGIONS)], stdout=subprocess.PIPE,
                                  text=True)
        assert target.stdout.readline().startswith("ready")
        scan = subprocess.Popen([RAMWATCH, "scan", str(target.pid), "--json"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(random.uniform(0.002, 0.08))
        target.send_signal(signal.SIGKILL)
        target.wait()
        out, err = scan.communicate(timeout=60)
        if scan.returncode == 0:
            census = json.loads(out)
            # a census that was printed is whole
            assert census["totals"]["regions"] >= REGIONS, census["totals"]
            outcomes["complete"] += 1
        else:
            assert scan.returncode == 1, err
            assert out == ""
            if "exited during the scan" in err:
                outcomes["exited"] += 1
            else:
                # killed before the scan began: reaped, or a zombie still
                assert f"no process {target.pid}" in err or f"process {target.pid} (many-maps) has exited" in err, err
                outcomes["gone"] += 1
        if outcomes["exited"] >= 5:
            break
    # the kill did land during reads, and each time it was seen
    assert outcomes["exited"] >= 1, outcomes
