"""pymalloc's in use and free bytes, read from outside, against CPython's
own figures: tests/helpers/pymalloc-objects.py makes and drops small
objects of seven sizes and prints sys._debugmallocstats() when asked, and
`ramwatch scan PID --json` must find, in the python class, the bytes in
allocated blocks as in_use and the bytes in available blocks and unused
pools as free, within 3 % or 2 MiB; the census leaves the process as it
was; a process whose threads make and drop objects during the census gets
figures that add up, or unknown, never a wrong figure."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import scan_json
from heapcheck import Target, adds_up, census_unchanged, class_of, near, wait_sleeping

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers", "pymalloc-objects.py")


class Objects(Target):
    """The helper running under python, its _debugmallocstats() a line away
    (on its standard error)."""

    def __init__(self, python, mode, n):
        self.err = tempfile.TemporaryFile(mode="w+")
        super().__init__([python, PROGRAM, mode, str(n)], stderr=self.err)

    def stats(self):
        """The figures sys._debugmallocstats() prints (bytes)."""
        self.err.seek(0)
        self.err.truncate()
        self.p.stdin.write("stats\n")
        self.p.stdin.flush()
        assert self.p.stdout.readline().strip() == "done"
        self.err.seek(0)
        text = self.err.read()

        def number(pattern):
            m = re.search(pattern, text, re.M)
            assert m, (pattern, text[:2000])
            return int(m.group(1).replace(",", ""))

        return {
            "allocated": number(r"^# bytes in allocated blocks\s*=\s*([\d,]+)"),
            "available": number(r"^# bytes in available blocks\s*=\s*([\d,]+)"),
            "unused_pools": number(r"^\d+ unused pools \* \d+ bytes\s*=\s*([\d,]+)"),
            "arenas": number(r"^# arenas allocated current\s*=\s*([\d,]+)"),
        }

    def stop(self):
        super().stop()
        self.err.close()


def python_version(python):
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip()


def python_class(census):
    k = class_of(census, "python")
    adds_up(k)
    return k


def compare(t, census, stats):
    k = python_class(census)
    assert k["how"].startswith(f"pymalloc (CPython {t.info['python']}): "), k["how"]
    # The first arenas pymalloc maps may land right after a library's
    # .bss and merge with it into one kernel region (rule image_bss);
    # evidence finds their pools there, so every arena CPython counts is
    # walked.
    walked = int(re.search(r": ([\d,]+) arenas?,", k["how"]).group(1).replace(",", ""))
    assert walked == stats["arenas"], (k["how"], stats)
    assert near(k["in_use"], stats["allocated"]), (k, stats)
    # the census counts the pools never carved only where they are memory
    # (none is: pymalloc never wrote them), _debugmallocstats all of them
    assert near(k["free"], stats["available"] + stats["unused_pools"]), (k, stats)
    return k


DEBIAN_PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def debian_python():
    if not os.path.exists(DEBIAN_PYTHON):
        pytest.skip("no /usr/bin/python3")
    return DEBIAN_PYTHON


@pytest.mark.parametrize("mode,n", [("fragmented", 2000000), ("dropped", 3000000)])
def test_against_debugmallocstats(debian_python, mode, n):
    """Fragmented: every ninth object kept, so most pools hold few blocks
    and most of the arenas is free.  Dropped: one in 400 kept, so most
    pools are empty, the returnable part."""
    with Objects(debian_python, mode, n) as t:
        wait_sleeping(t.pid)
        before = t.stats()
        census = census_unchanged(t.pid, "--regions")
        after = t.stats()
        assert before == after, "the target changed its heap on its own"
        k = compare(t, census, before)
        assert k["unknown"] <= 0.03 * k["private"], k
        if mode == "fragmented":
            # most of what the arenas hold is free, and pools are in use
            assert k["free"] > 4 * k["in_use"], k
        else:
            # empty pools are the returnable part: all of their pages
            assert near(k["returnable"], before["unused_pools"]), (k, before)
            assert "empty, returnable" in k["how"]


def test_busy_target(debian_python):
    """Two threads make and drop objects during every census: each is a
    figure that adds up, arenas caught changing being unknown with the
    reason, never a figure the pools did not check out for."""
    with Objects(debian_python, "busy", 500000) as t:
        # what the program holds, give or take what the threads churn
        allocated = t.stats()["allocated"]
        seen_known = 0
        for _ in range(12):
            census = scan_json(t.pid)
            k = python_class(census)
            assert k["in_use"] + k["free"] <= k["private"]
            assert allocated / 2 <= k["in_use"] <= 2 * allocated, (k, allocated)
            if k["unknown"] > 0.03 * k["private"]:
                assert "changed while read" in k["how"] or "no pool header" in k["how"], k["how"]
            else:
                seen_known += 1
        # the threads hold the GIL in turns: most censuses check out
        assert seen_known > 0


def other_pythons():
    """CPython 3.8 to 3.13 builds this machine has besides Debian's (pyenv's
    or on the PATH), each a layout of the table: 4 KiB pools before 3.10,
    16 KiB since."""
    found = []
    root = os.path.expanduser("~/.pyenv/versions")
    for minor in (8, 9, 10, 12, 13):
        paths = []
        if os.path.isdir(root):
            paths += [os.path.join(root, d, "bin", f"python3.{minor}") for d in sorted(os.listdir(root))
                      if d.startswith(f"3.{minor}.")]
        paths += [p for p in [shutil.which(f"python3.{minor}")] if p]
        path = next((p for p in paths if os.access(p, os.X_OK) and python_version(p) == f"3.{minor}"), None)
        found.append(pytest.param(path, minor, id=f"3.{minor}"))
    return found


@pytest.mark.parametrize("python,minor", other_pythons())
def test_other_layouts(python, minor):
    if not python:
        pytest.skip(f"no CPython 3.{minor} on this machine")
    with Objects(python, "fragmented", 1000000) as t:
        wait_sleeping(t.pid)
        stats = t.stats()
        census = census_unchanged(t.pid, "--regions")
        compare(t, census, stats)
