"""Files the client reads that anyone may have made: a saved census given to
`ramwatch summary` or `diff`, an smaps capture given to `scan --smaps`.
Whatever their size or shape, each is refused with a clear message (exit
1), in bounded time and memory, or read; never a crash, a hang or a
client that grows with the file."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import DATA, RAMWATCH, SANITIZED_MEMORY_FACTOR, SANITIZED_TIME_FACTOR, MiB, run, sanitized

SMAPS = os.path.join(DATA, "smaps")
CENSUS_FILE_MAX = 256 * MiB      # RW_CENSUS_FILE_MAX
CENSUS_VALUES_MAX = 4 * 1024 * 1024  # RW_CENSUS_VALUES_MAX
REGIONS_MAX = 4 * 1024 * 1024    # RW_REGIONS_MAX
TIME = "/usr/bin/time"
# the bounds below are a plain build's; an ASan build gets more of both
MEM = SANITIZED_MEMORY_FACTOR if sanitized() else 1
SLOW = SANITIZED_TIME_FACTOR if sanitized() else 1


def measured(*args, stdin=None, timeout=60):
    """Runs ramwatch; returns (exit status, stderr, seconds, peak RSS in
    bytes).  The peak is GNU time's: wait4 from this process would count
    the pages of the forked test process too."""
    if not os.access(TIME, os.X_OK):
        pytest.skip(f"{TIME} (GNU time) is needed to measure peak memory")
    fd, rss_file = tempfile.mkstemp(prefix="ramwatch-rss-")
    os.close(fd)
    start = time.monotonic()
    try:
        p = subprocess.Popen([TIME, "-f", "%M", "-o", rss_file, RAMWATCH, *map(str, args)],
                             stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            pytest.fail(f"{args}: still running after {timeout} s")
        seconds = time.monotonic() - start
        with open(rss_file) as f:
            rss = int(f.read().split()[-1]) * 1024
    finally:
        os.unlink(rss_file)
    return p.returncode, err.decode(errors="replace"), seconds, rss


@pytest.fixture(scope="module")
def census_text():
    """A valid saved census (every region), as text."""
    return run("scan", "--smaps", os.path.join(SMAPS, "bash.smaps"), "--json", "--regions", check=0).stdout


def refused(path, *words, command="summary", extra=(), max_seconds=10, max_rss=64 * MiB, **kw):
    code, err, seconds, rss = measured(command, path, *extra, **kw)
    assert code == 1, err
    for w in words:
        assert w in err, err
    assert seconds < max_seconds * SLOW, f"{seconds:.1f} s"
    assert rss < max_rss * MEM, f"peak RSS {rss / MiB:.0f} MiB"
    return err


# ------------------------------------------------------------ saved census

def test_census_past_the_size_limit(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as f:
        f.truncate(CENSUS_FILE_MAX + 1)  # sparse: refused by its size, not read
    refused(p, f"{p}: larger than 256 MiB: not a census file", max_seconds=2)
    # the same through a pipe is counted as it is read, and stops there
    with open("/dev/zero", "rb") as zero:
        refused("-", "-: larger than 256 MiB", stdin=zero, max_rss=CENSUS_FILE_MAX + 64 * MiB)
    # diff reads its files the same way
    refused(p, "larger than 256 MiB", command="diff", extra=(p,))


def test_census_of_many_values(tmp_path):
    # "[]," costs jansson about 150 bytes: 256 MiB of it would take 12 GiB
    n = CENSUS_VALUES_MAX // 2
    p = tmp_path / "values.json"
    p.write_text('{"x": [' + "[]," * n + "[]]}")
    refused(p, "more than 4194304 JSON values: not a census file")
    # at the limit it is parsed (and is not a census), in bounded memory
    p.write_text('{"x": [' + "{}," * (n - 2) + "{}]}")
    refused(p, 'not a ramwatch census (no "format"', max_seconds=20, max_rss=1024 * MiB)


def test_census_at_the_value_limit_is_read(tmp_path, census_text):
    """A real census as large as the limit allows (about 280,000 regions)
    is read, in the memory the manual promises."""
    c = json.loads(census_text)
    region = c["regions"][0]
    per = len(region) + 1
    c["regions"] = [region] * ((CENSUS_VALUES_MAX - 2000) // per)
    p = tmp_path / "large.json"
    p.write_text(json.dumps(c))
    code, err, seconds, rss = measured("summary", p)
    assert code == 0, err
    assert seconds < 30 * SLOW and rss < 1024 * MiB * MEM, (seconds, rss / MiB)


def test_deep_nesting(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100000 + "]" * 100000)
    refused(p, "not valid JSON (line 1, column 2049", "maximum parsing depth reached")


@pytest.mark.parametrize("number", ["9223372036854775808", "18446744073709551616", "-9223372036854775809"])
def test_numbers_past_64_bits(tmp_path, census_text, number):
    c = json.loads(census_text)
    text = census_text.replace('"private": %d' % c["totals"]["private"], '"private": ' + number, 1)
    assert number in text
    p = tmp_path / "number.json"
    p.write_text(text)
    refused(p, '"private": a number out of range (line ', f"near '{number}'")


def test_largest_number_is_read(tmp_path, census_text):
    c = json.loads(census_text)
    c["totals"]["private"] = 2**63 - 1
    p = tmp_path / "max.json"
    p.write_text(json.dumps(c))
    assert json.loads(run("summary", p, "--json", check=0).stdout)["totals"]["private"] == 2**63 - 1
    # diff takes the difference of such numbers without overflowing
    assert "total " in run("diff", p, p, check=0).stdout


def test_duplicate_key(tmp_path, census_text):
    p = tmp_path / "dup.json"
    p.write_text('{"format": "x", ' + census_text.lstrip()[1:])
    refused(p, "not valid JSON (line 2", "duplicate object key near '\"format\"'")


def test_invalid_utf8(tmp_path, census_text):
    data = census_text.encode()
    at = data.index(b'"perms": "') + len(b'"perms": "')
    p = tmp_path / "utf8.json"
    p.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    err = refused(p, "unable to decode byte 0xff")
    line = data[:at].count(b"\n") + 1
    assert f"line {line}," in err and "byte " in err


def test_census_from_a_fifo(tmp_path, census_text):
    fifo = tmp_path / "census.fifo"
    os.mkfifo(fifo)
    # no writer: read as empty at once, rather than waiting for one
    refused(fifo, f"{fifo}: empty: not a census file", max_seconds=5)
    writer = threading.Thread(target=lambda: fifo.write_text(census_text))
    writer.start()
    out = run("summary", fifo, check=0, timeout=10).stdout
    writer.join()
    assert "44 regions" in out


# ------------------------------------------------------------ scan --smaps

def test_smaps_sparse_file(tmp_path):
    p = tmp_path / "sparse.smaps"
    with open(p, "wb") as f:
        f.truncate(10 << 30)  # 10 GiB of NULs, none on disk
    code, err, seconds, rss = measured("scan", "--smaps", p)
    assert code == 1
    assert f"{p}: line 1: binary data (NUL byte)" in err
    assert seconds < 2 * SLOW and rss < 64 * MiB * MEM, (seconds, rss / MiB)
    # NULs after valid text: refused on their own line
    with open(os.path.join(SMAPS, "bash.smaps"), "rb") as f:
        text = f.read()
    with open(p, "wb") as f:
        f.write(text)
        f.truncate(10 << 30)
    code, err, seconds, rss = measured("scan", "--smaps", p)
    assert code == 1
    line = text.count(b"\n") + 1
    assert f"line {line}: binary data (NUL byte)" in err
    assert seconds < 2 * SLOW and rss < 64 * MiB * MEM, (seconds, rss / MiB)


def test_smaps_fifo(tmp_path):
    fifo = tmp_path / "smaps.fifo"
    os.mkfifo(fifo)
    code, err, seconds, _ = measured("scan", "--smaps", fifo, timeout=10)
    assert code == 1
    assert f"{fifo}: no regions: not an smaps file, or the capture is empty" in err
    assert seconds < 5
    with open(os.path.join(SMAPS, "bash.smaps")) as f:
        text = f.read()
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    out = run("scan", "--smaps", fifo, check=0, timeout=10).stdout
    writer.join()
    assert "44 regions" in out


def test_smaps_past_the_region_limit(tmp_path):
    """RW_REGIONS_MAX regions are read, one more is refused, in memory
    bounded by the limit (about 160 bytes a region)."""
    p = tmp_path / "many.smaps"
    with open(p, "w") as f:
        line = "%x-%x rw-p 00000000 00:00 0\n"
        for i in range(0, REGIONS_MAX + 1, 4096):
            f.write("".join(line % (a, a + 0x1000) for a in
                            range(0x10000000 + i * 0x2000, 0x10000000 + min(i + 4096, REGIONS_MAX + 1) * 0x2000,
                                  0x2000)))
    code, err, seconds, rss = measured("scan", "--smaps", p, timeout=120)
    assert code == 1
    assert f"{p}: line {REGIONS_MAX + 1}: more than {REGIONS_MAX} regions" in err
    assert rss < 1536 * MiB, rss / MiB
