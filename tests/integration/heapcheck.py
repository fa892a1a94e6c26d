"""What the tests of evidence and of the heap walkers check the same way:
a target program started and asked for its allocator's own figures, the
target's memory as the kernel counts it before and after a census, a
class's figures adding up, and a census figure near the allocator's."""
import json
import os
import subprocess
import time

from conftest import HELPERS, MiB, run, scan_json, stop

# what a census must leave as it was: nothing faulted in, swapped in or
# mapped by reading the target's memory
STATUS_KEYS = ("VmRSS", "RssAnon", "VmSwap", "VmPTE")
COUNTERS = ("in_use", "free", "overhead", "unknown")


def status(pid):
    """The target's VmRSS, RssAnon, VmSwap and VmPTE (kB)."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in STATUS_KEYS:
                out[key] = int(value.split()[0])
    return out


def census_unchanged(pid, *extra, tries=1):
    """A census (`ramwatch scan PID --json` and extra) taken while the
    target's status stays as it was.  Programs with threads of their own (a
    JVM's, Node's) may change it on their own: such a program gets a few
    tries, one of which must show nothing changed."""
    for _ in range(tries):
        before = status(pid)
        census = scan_json(pid, *extra)
        after = status(pid)
        if before == after:
            return census
    raise AssertionError(f"the census changed the process: {before} -> {after}")


def wait_sleeping(pid, timeout=10):
    """The helpers' threads wait on a condition, their main thread in
    read(): settled once no thread runs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        states = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        if all(s in "SD" for s in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not settle")


class Target:
    """A program that prints one line of JSON (its pid among it) once
    ready, then answers each command on its standard input with a line of
    JSON.  With settle, the test starts once none of its threads runs."""

    def __init__(self, cmd, settle=False, **kw):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **kw)
        line = self.p.stdout.readline()
        assert line, f"{cmd} exited before it was ready"
        self.info = json.loads(line)
        self.pid = self.info["pid"]
        if settle:
            wait_sleeping(self.pid)

    def ask(self, command):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def stop(self):
        stop(self.p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def classes(census):
    return {c["key"]: c for c in census["classes"]}


def class_of(census, key):
    for c in census["classes"]:
        if c["key"] == key:
            return c
    raise AssertionError(f"no {key} class in {[c['key'] for c in census['classes']]}")


def adds_up(c):
    """What a user adds up first: in use, free, overhead and unknown make
    the class's private bytes, and returnable is some of free."""
    for key in COUNTERS + ("returnable",):
        assert isinstance(c[key], int) and c[key] >= 0, (key, c)
    assert sum(c[key] for key in COUNTERS) == c["private"], c
    assert c["returnable"] <= c["free"], c


def slack(want):
    """How far a census may be from the allocator's own figure: 3 % or
    2 MiB, whichever is larger (memory never written is in no census, and
    allocators count blocks their caches took and have not handed out)."""
    return max(0.03 * want, 2 * MiB)


def near(got, want):
    return abs(got - want) <= slack(want)


def assert_near(got, want, what):
    assert near(got, want), f"{what}: ramwatch {got}, the allocator {want}"


def census_again(pid, tmp_path):
    """A live census that saves the target's memory image, and the census
    taken again from that image and copies of the target's smaps and
    status, as a user would send them: (live, again)."""
    smaps, status_file, image = tmp_path / "p.smaps", tmp_path / "p.status", tmp_path / "p.img"
    smaps.write_bytes(open(f"/proc/{pid}/smaps", "rb").read())
    status_file.write_bytes(open(f"/proc/{pid}/status", "rb").read())
    live = scan_json(pid, "--save-memory", image)
    again = json.loads(run("scan", "--smaps", smaps, "--status", status_file, "--memory", image, "--json",
                           check=0).stdout)
    return live, again


def heapstat(allocator, *args, settle=True):
    """tests/helpers/heapstat.c linked with allocator: its first line says
    which, its answer to "stats" what the allocator says of its heap."""
    t = Target([os.path.join(HELPERS, f"heapstat-{allocator}"), *args], settle=settle)
    assert t.info["allocator"] == allocator, t.info
    return t


def settle_heapstat(t):
    """Its first answer allocates stdio's buffer: the figures after it stay put."""
    t.ask("stats")
    wait_sleeping(t.pid)


def quiet_census(t):
    """A census of a quiet heapstat helper that leaves it as it was, and
    what its allocator says right after: (the malloc class, which adds up;
    the allocator's figures)."""
    settle_heapstat(t)
    census = census_unchanged(t.pid)
    own = t.ask("stats")["stats"]
    c = class_of(census, "malloc")
    adds_up(c)
    return c, own


def saved_census_finds_the_same(t, tmp_path):
    """A quiet heapstat helper's census taken again from its saved smaps,
    status and memory image: the malloc class adds up, and says what the
    live census said."""
    settle_heapstat(t)
    live, saved = census_again(t.pid, tmp_path)
    live, again = class_of(live, "malloc"), class_of(saved, "malloc")
    adds_up(again)
    assert again["how"] == live["how"], (again["how"], live["how"])
    for key in ("in_use", "free", "returnable"):
        assert again[key] == live[key], (key, again, live)


def busy_known(t, how, censuses=6):
    """Censuses of a heapstat helper whose threads allocate and free while
    it is read: each adds up and names the allocator (how), and where it
    read anything, in use is at most the class's private bytes.  Returns
    how many read anything."""
    known = 0
    for _ in range(censuses):
        c = class_of(scan_json(t.pid), "malloc")
        adds_up(c)
        assert c["how"].startswith(how), c["how"]
        if c["in_use"] or c["free"]:
            known += 1
            assert c["in_use"] <= c["private"]
    return known
