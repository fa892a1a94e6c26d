"""What the Windows tests share: where the builds and Wine are, a Linux
path as Wine shows it, one wineserver for a test module, and Wine's sc
for the services the tests install."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("RAMWATCH_BUILD", os.path.join(ROOT, "build"))
WIN = os.path.join(BUILD, "windows")
EXE = os.path.join(WIN, "ramwatch.exe")
LINUX = os.path.join(BUILD, "ramwatch")
WINE = shutil.which("wine64") or "/usr/lib/wine/wine64"
WINESERVER = shutil.which("wineserver") or "/usr/lib/wine/wineserver"


def winpath(path):
    """A Linux path as Wine's Z: drive shows it."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def session(needs):
    """A module's Wine environment, for a fixture to yield from: skipped
    unless every (path, what) of needs exists.  One wineserver for the
    module, so that each program starts in ~50 ms.  Any server of this
    prefix is stopped first, and waited for: a server still going away
    would make the next program start one of its own, holding that
    program's output open (and its reader waiting).  The first program
    starts Wine's services; their output is not ours either."""
    for path, what in ((WINE, "wine64"), (EXE, "ramwatch.exe (make windows)"), *needs):
        if not os.path.exists(path):
            pytest.skip(f"needs {what}")
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=os.environ.get("WINEPREFIX", os.path.join(WIN, "wineprefix")))
    env.pop("DISPLAY", None)
    env.pop("RAMWATCH_DB", None)
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([WINESERVER, "-k"], env=env, timeout=60, **quiet)
    subprocess.run([WINESERVER, "-w"], env=env, timeout=60, **quiet)
    subprocess.run([WINESERVER, "-p"], env=env, timeout=60, **quiet)
    subprocess.run([WINE, EXE, "--help"], env=env, timeout=300, **quiet)
    yield env
    subprocess.run([WINESERVER, "-k"], env=env, timeout=60, **quiet)


def sc(env, *args):
    """Wine's sc (the service control manager's command) with args."""
    return subprocess.run([WINE, "sc", *args], env=env, capture_output=True, text=True, timeout=60)


def service_state(env, name):
    """The service's state as sc query names it (RUNNING, STOPPED...), or
    what sc said where it names none."""
    r = sc(env, "query", name)
    m = re.search(r"STATE\s*:\s*\d+\s+(\w+)", r.stdout)
    return m.group(1) if m else r.stdout + r.stderr
