"""Sizes and durations: one grammar for ramwatchd.conf and for every option
of ramwatch.  A form the configuration takes is taken on the command line
with the same meaning, and junk is refused in both, naming the setting or
the option."""
import os
import sqlite3
import subprocess

import pytest

from conftest import BUILD, run

RAMWATCHD = os.path.join(BUILD, "ramwatchd")
TRACE = ('{"kind":"alloc","address":16,"len":100,"scope":"small"}\n'
         '{"kind":"alloc","address":32,"len":5000,"scope":"big"}\n')


def check_config(tmp_path, text):
    path = tmp_path / "ramwatchd.conf"
    path.write_text(text)
    return subprocess.run([RAMWATCHD, "--check-config", "--config", str(path)], capture_output=True, text=True)


def setting(out, name):
    return next(line for line in out.splitlines() if line.startswith(name + "=")).split("=", 1)[1]


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "t.db")
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    return path


def summary_rows(tmp_path, *args):
    trace = tmp_path / "t.jsonl"
    trace.write_text(TRACE)
    out = run("trace", "summary", *args, trace, check=0).stdout
    # the first word of each row, as in test_trace_summary.py
    return [line.split(" ")[0] for line in out.splitlines() if not line.startswith("memtrace ")]


def test_the_configuration_takes_decimals_bare_seconds_and_parts(tmp_path):
    r = check_config(tmp_path, "[Watch]\nMinPrivate=1.5M\n[Sampling]\nSampleInterval=0.5\n"
                     "StoreInterval=1.5min\nCensusMinSpacing=1h 30min\n[Store]\nRetention=2d 12h\n")
    assert r.returncode == 0, r.stderr
    assert setting(r.stdout, "MinPrivate") == "1536K"
    assert setting(r.stdout, "SampleInterval") == "500ms"
    assert setting(r.stdout, "StoreInterval") == "1min 30s"
    assert setting(r.stdout, "CensusMinSpacing") == "1h 30min"
    assert setting(r.stdout, "Retention") == "2d 12h"


def test_options_take_the_configurations_forms(tmp_path, db):
    # the same "1.5" forms as above: minutes, mebibytes, seconds without a unit
    for timeout in ["1.5min", "90", "90s", "1min 30s", "0.5", "500ms"]:
        r = run("sql", "SELECT 1 AS one", "--db", db, "--format", "csv", "--timeout", timeout, check=0)
        assert r.stdout == "one\n1\n"  # text mode: CRLF read as \\n
    for size in ["1.5M", "1536K", "1.5MiB", "64k"]:
        r = run("sql", "SELECT 1 AS one", "--db", db, "--format", "csv", "--max-bytes", size, check=0)
        assert r.stdout == "one\n1\n"  # text mode: CRLF read as \\n
    # --min-bytes: 4.5K is 4608 bytes, below "big" (5000); 5K is above it
    assert summary_rows(tmp_path, "--min-bytes", "101") == ["big"]
    assert summary_rows(tmp_path, "--min-bytes", "4.5K") == ["big"]
    assert summary_rows(tmp_path, "--min-bytes", "4608B") == ["big"]
    assert summary_rows(tmp_path, "--min-bytes", "5K") == []


def test_a_fraction_of_a_millisecond_is_not_a_timeout(db):
    # the grammar takes it, the option needs at least a millisecond
    r = run("sql", "SELECT 1", "--db", db, "--timeout", "0.0005", check=2)
    assert "--timeout takes a duration of at least 1ms and at most 1h" in r.stderr
    r = run("sql", "SELECT 1 AS one", "--db", db, "--format", "csv", "--timeout", "1ms", check=0)
    assert r.stdout == "one\n1\n"  # text mode: CRLF read as \\n


@pytest.mark.parametrize("value", ["1.5x", "-1s", "1e3", "0x10", "1.5.5h", "5 mins", "1H", "1s,2s", "1" * 257 + "s"])
def test_junk_durations_are_refused_everywhere(tmp_path, db, value):
    r = check_config(tmp_path, f"[Sampling]\nStoreInterval={value}\n")
    assert r.returncode == 1
    assert "StoreInterval: '" in r.stderr and "is not a time" in r.stderr
    r = run("sql", "SELECT 1", "--db", db, "--timeout", value, check=2)
    assert f"--timeout takes a duration of at least 1ms and at most 1h (10, 0.5s, 2min), not '{value}'" in r.stderr
    r = run("history", "--pid", "1", "--step", value, check=2)
    assert f"--step takes a duration of at least 1ms (30s, 1.5min, 1h 30min), not '{value}'" in r.stderr
    r = run("history", "--pid", "1", "--since", value, check=2)
    assert "--since takes a time" in r.stderr and value in r.stderr


@pytest.mark.parametrize("value", ["1.5", "1X", "1Mi", "-1", "1 M", "1e3", ".5G", "1" * 257])
def test_junk_sizes_are_refused_everywhere(tmp_path, db, value):
    r = check_config(tmp_path, f"[Watch]\nMinPrivate={value}\n")
    assert r.returncode == 1
    assert "MinPrivate: '" in r.stderr and "is not a size" in r.stderr
    r = run("sql", "SELECT 1", "--db", db, "--max-bytes", value, check=2)
    assert f"--max-bytes takes a size from 1 to 4.00 GiB, not '{value}'" in r.stderr
    r = run("trace", "summary", "--min-bytes", value, "f", check=2)
    assert f"--min-bytes takes a size (4096, 64K, 1.5M), not '{value}'" in r.stderr


def test_past_the_largest_value(tmp_path, db):
    # 16E is 2^64 bytes; 18446744073710s is past 2^64 microseconds
    r = check_config(tmp_path, "[Watch]\nMinPrivate=16E\n")
    assert r.returncode == 1 and "MinPrivate: '16E' is too large" in r.stderr
    r = check_config(tmp_path, "[Watch]\nMinPrivate=15.5E\n")
    assert r.returncode == 0 and setting(r.stdout, "MinPrivate") == "15872P"
    r = run("sql", "SELECT 1", "--db", db, "--max-bytes", "16E", check=2)
    assert "--max-bytes takes a size from 1 to 4.00 GiB, not '16E'" in r.stderr
    r = run("history", "--pid", "1", "--step", "18446744073710s", check=2)
    assert "--step takes a duration" in r.stderr
