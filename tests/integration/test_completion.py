"""The shell completions (completions/): loaded by a real bash, the
completion function called as bash calls it (COMP_WORDS, COMP_CWORD), its
answers checked against what `ramwatch --help` and each command's --help
say, and against a real daemon's processes; the zsh function loaded by
compinit in a real zsh when zsh is installed."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import BUILD, RAMWATCH, run
from rwdaemon import Daemon, fast_config

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
BASH_COMPLETION = os.path.join(ROOT, "completions", "ramwatch.bash")
ZSH_COMPLETION_DIR = os.path.join(ROOT, "completions")


def complete(*words, env=None, program="ramwatch"):
    """What the bash completion offers for the command line words (the
    last one is the word being completed) after program."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
              'COMP_LINE="$*"; COMPREPLY=(); _ramwatch; printf "%s\\n" "${COMPREPLY[@]}"')
    environment = dict(os.environ, PATH=f"{os.path.abspath(BUILD)}:{os.environ['PATH']}")
    environment.update(env or {})
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "bash", BASH_COMPLETION, program, *words],
                       capture_output=True, text=True, env=environment, timeout=30)
    assert r.returncode == 0 and r.stderr == "", r
    return [line for line in r.stdout.splitlines() if line]


def commands():
    out = run("--help", check=0).stdout
    listed = out[out.index("Commands:\n") + len("Commands:\n"):out.index("\n\n", out.index("Commands:\n"))]
    return [line.split()[0] for line in listed.splitlines()]


def test_bash_registers_the_function():
    r = subprocess.run(["bash", "--norc", "-c", f'source "{BASH_COMPLETION}" && complete -p ramwatch'],
                       capture_output=True, text=True)
    assert r.stdout == "complete -F _ramwatch ramwatch\n", r


def test_bash_commands_and_options():
    names = commands()
    assert len(names) >= 12 and "history" in names
    assert complete("") == names + ["help"]
    assert complete("hi") == ["history"]
    assert complete("--so") == ["--socket="]
    # after a global option, still the commands
    assert complete("--socket", "/run/x.sock", "st") == ["status"]
    assert complete("--socket=/run/x.sock", "st") == ["status"]
    # every option each command's --help names, and only options it has
    for name in names:
        if name == "trace":
            helped = run("trace", "summary", "--help", check=0).stdout
        else:
            helped = run(name, "--help").stdout
        # the usage lines and the option lines (indented), not the prose nor
        # another command quoted in them
        syntax = "\n".join(line for line in helped.splitlines() if line.startswith(("Usage:", " ")))
        syntax = re.sub(r"'ramwatch [^'\n]*'", "", syntax)
        documented = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", syntax))
        offered = {w.rstrip("=") for w in complete(name, "--")}
        if documented:
            assert documented <= offered, (name, documented - offered)
            assert offered - documented <= {"--help"}, (name, offered - documented)
    # an option that takes a value is offered with "=", one that does not without
    assert "--pid=" in complete("history", "--") and "--all" in complete("processes", "--")
    assert complete("summary", "--t") == ["--top="] and complete("scan", "--no-g") == ["--no-gpu"]
    # the ramwatch of the command line is the one asked, when PATH has none
    assert complete("hi", program=os.path.abspath(RAMWATCH), env={"PATH": "/usr/bin:/bin"}) == ["history"]
    assert complete("hi", env={"PATH": "/usr/bin:/bin"}) == []
    # values of options
    assert complete("history", "--format", "") == ["table", "csv", "json"]
    assert complete("history", "--format=c") == ["csv"]
    assert complete("processes", "--sort", "p") == ["private", "peak"]
    assert complete("diff", "--from", "f") == ["first"]
    # trace's sub-commands, and each one's options and values
    assert complete("trace", "") == ["summary", "record", "export"]
    assert complete("trace", "record", "--f") == ["--format="]
    assert complete("trace", "record", "--format", "") == ["json", "binary"]
    assert complete("trace", "summary", "--layer", "l") == ["logical"]
    assert complete("trace", "export", "--o") == ["--output="]
    assert complete("top", "--sort", "g") == ["growth"]
    assert "runtime_heap" in complete("history", "--class", "")


def test_bash_pids_and_names_from_the_daemon(tmp_path, shapes):
    sockdir = tempfile.mkdtemp(prefix="rw-complete-", dir="/tmp")
    sock = os.path.join(sockdir, "ramwatch.sock")
    d = Daemon(tmp_path, fast_config(f"Watch=pid:{shapes.pid}"), socket=sock)
    d.start()
    try:
        deadline = time.time() + 20
        while time.time() < deadline and str(shapes.pid) not in complete("--socket", sock, "history", "--pid", ""):
            time.sleep(0.2)
        assert str(shapes.pid) in complete("--socket", sock, "history", "--pid", "")
        assert str(shapes.pid) in complete("history", "--pid", "", env={"RAMWATCH_SOCKET": sock})
        assert "shapes" in complete("history", "--socket", sock, "--name", "sha")
        assert str(shapes.pid) in complete("--socket", sock, "scan", str(shapes.pid)[:-1])
        if shutil.which("zsh"):
            # the one process there is: zsh puts its pid on the line
            out = zsh_complete(tmp_path, f"ramwatch history --socket {sock} --pid ").stdout
            assert f"--pid {shapes.pid} " in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out), out
    finally:
        d.stop()
        shutil.rmtree(sockdir, ignore_errors=True)
    # no daemon: nothing offered, quietly and at once
    start = time.monotonic()
    assert complete("--socket", sock, "history", "--pid", "") == []
    assert time.monotonic() - start < 5


# An interactive zsh on a pseudo-terminal (zsh/zpty) with compinit and
# completions/ on fpath; types the line given and TAB, prints what came back.
ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d $2/zcompdump"
zpty -w z "PS1='%% '; zstyle ':completion:*' list-prompt ''; LISTMAX=1000; print -r -- \$_comps[ramwatch]; print READY"
zpty -r z line '*READY*'
out=$line
zpty -r z line '*READY*'
out+=$line
zpty -w -n z "$3"$'\t'
sleep 2
while zpty -r -t z chunk; do out+=$chunk; done
print -r -- "$out"
zpty -d z
"""


def zsh_complete(tmp_path, line):
    r = subprocess.run(["zsh", "-f", "-c", ZSH_DRIVER, "zsh", ZSH_COMPLETION_DIR, str(tmp_path), line],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PATH=f"{os.path.abspath(BUILD)}:{os.environ['PATH']}"))
    assert r.returncode == 0, r
    return r


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed")
def test_zsh_lists_the_commands(tmp_path):
    """compinit binds _ramwatch to ramwatch, and TAB after "ramwatch " lists
    every command of `ramwatch --help` with its summary."""
    r = zsh_complete(tmp_path, "ramwatch ")
    assert re.search(r"(^|\n|\r)_ramwatch\r?\n", r.stdout), r.stdout
    listing = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", r.stdout)
    for name in commands():
        assert re.search(rf"(^|\n|\r){name} +-- \S", listing), (name, listing)
