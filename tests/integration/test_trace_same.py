"""ramwatch trace summary says the same, byte for byte, as the summaries kept
in tests/data/trace-summaries.txt: every trace of tests/data/trace (the
binary one also as its export to JSON Lines), the binary traces of
tests/data/fuzz/trace-binary, and a trace written here with every variation
a JSON Lines writer may make (keys in any order, spaces, unknown fields,
escapes, numbers at their limits, lines the fast parser leaves to the
general one, and the same with a line refused), each with the options that change
what is counted or how it is written.  Output, errors and exit codes were
kept from the replay as it was before it was made faster: a change to the
replay that changes any of them fails here.

To write trace-summaries.txt again (only when a change of output is meant):

    RAMWATCH_BUILD=build python3 tests/integration/test_trace_same.py --write
"""

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("RAMWATCH_BUILD", ROOT / "build"))
RAMWATCH = BUILD / "ramwatch"
DATA = ROOT / "tests" / "data" / "trace"
BINARY_SEEDS = ROOT / "tests" / "data" / "fuzz" / "trace-binary"
KEPT = ROOT / "tests" / "data" / "trace-summaries.txt"
MAGIC = b"\x89rwtrace2\x1a"  # trace/trace-binary.h

OPTIONS = [
    [],
    ["--json"],
    ["--sites", "--top", "5"],
    ["--sites", "--json", "--sort", "traffic"],
    ["--stacks"],
    ["--sort", "lifetime", "--include-zero-live"],
    ["--layer", "backing"],
    ["--layer", "logical", "--min-bytes", "1K"],
    ["--layer", "physical", "--json"],
]


def varied_trace():
    """A trace of about 3,000 events in every form a writer may give, from a
    fixed seed: the same text on every run."""
    rng = random.Random(43)
    lines = ['{"v":3,"seq":1,"kind":"trace.start","producer":"varied"}',
             '{"v":3,"seq":2,"kind":"allocator","allocator_id":1,"layer":"logical_allocator",'
             '"retains_freed_memory":true,"lifecycle_instrumented":false}',
             '{"v":3,"seq":3,"kind":"allocator","allocator_id":2,"layer":"backing_boundary"}']
    for s in range(1, 41):
        path = f"root/part{s % 7}/step{s}" if s % 9 else f"root/\\u00e9t\\u00e9/\\\"q{s}\\\""
        lines.append(f'{{"v":3,"seq":{len(lines) + 1},"kind":"scope.enter","scope_id":{s},"scope":"{path}"}}')
    live = []
    next_address = 0x7f0000001000
    seq = len(lines)
    while seq < 3000:
        seq += 1
        r = rng.randrange(100)
        layer = rng.choice(["logical_allocator", "backing_boundary", None])
        allocator = 1 if layer == "logical_allocator" else 2
        fields = [("v", "3"), ("seq", str(seq))]
        if live and r < 35:
            address, length = live.pop(rng.randrange(len(live)))
            fields += [("kind", '"free"'), ("address", str(address))]
            if rng.randrange(3) == 0:
                fields.append(("len", str(length)))
        elif live and r < 50:
            i = rng.randrange(len(live))
            length = rng.choice([0, 1, 17, 4096, 1 << 20, 2**64 - 17])
            fields += [("kind", '"resize"'), ("address", str(live[i][0])), ("old_len", str(live[i][1])),
                       ("len", str(length))]
            live[i] = (live[i][0], length)
        elif live and r < 55:
            i = rng.randrange(len(live))
            next_address += 0x1000
            fields += [("kind", '"remap"'), ("old_address", str(live[i][0])), ("address", str(next_address)),
                       ("len", str(live[i][1] // 2 + 16))]
            live[i] = (next_address, live[i][1] // 2 + 16)
        elif r < 62:
            kind = rng.choice(["map", "unmap", "protect", "discard", "advise", "decommit"])
            fields += [("kind", f'"{kind}"'), ("address", str(rng.randrange(1, 64) * 0x200000)),
                       ("len", str(rng.choice([4096, 0x200000, 0x600000])))]
            layer = rng.choice(["backing_boundary", "physical_page"])
        elif r < 64:
            fields += [("kind", '"alloc"'), ("len", str(rng.randrange(1, 4000))), ("tracked", "false"),
                       ("count", str(rng.randrange(1, 9)))]
        elif r < 65:
            fields += [("kind", '"free"'), ("address", "12345"), ("tracked", "false")]
        else:
            length = rng.choice([16, 48, 256, 1024, 65536, 1 << 24])
            next_address += 0x40 + length
            live.append((next_address, length))
            fields += [("kind", '"alloc"'), ("address", str(next_address)), ("len", str(length)),
                       ("return_address", str(0x401000 + rng.randrange(30) * 0x10))]
            if rng.randrange(10) == 0:
                fields.append(("succeeded", "false"))
                live.pop()
        if layer:
            fields.append(("layer", f'"{layer}"'))
        fields.append(("allocator_id", str(allocator)))
        if rng.randrange(6) == 0:
            fields.append(("scope", f'"root/inline{rng.randrange(5)}"'))
        elif rng.randrange(5):
            fields.append(("scope_id", str(rng.randrange(0, 41))))
        if rng.randrange(8) == 0:
            fields.append(("ts", rng.choice(["1.5e3", "-2", "0", "null", '"x"', "true"])))
        if rng.randrange(12) == 0:
            rng.shuffle(fields)
        sep, colon = rng.choice([(",", ":")] * 6 + [(", ", ": "), (" , ", " : "), (",\t", ":")])
        line = "{" + sep.join(f'"{k}"{colon}{v}' for k, v in fields) + "}"
        if rng.randrange(40) == 0:
            line = " " + line + " \r"
        if rng.randrange(60) == 0:
            lines.append("")
        lines.append(line)
    for s in range(40, 0, -1):
        seq += 1
        lines.append(f'{{"v":3,"seq":{seq},"kind":"scope.exit","scope_id":{s}}}')
    lines.append(f'{{"v":3,"seq":{seq + 1},"kind":"trace.stop"}}')
    return "\n".join(lines) + "\n"


def traces(workdir):
    """(name, path) of each trace replayed; written ones go to workdir."""
    out = [(p.name, p) for p in sorted(DATA.iterdir()) if p.suffix in (".jsonl", ".bin")]
    for seed in sorted(BINARY_SEEDS.iterdir()):
        # the fuzz target puts the magic before its inputs
        path = workdir / f"fuzz-{seed.name}.bin"
        path.write_bytes(MAGIC + seed.read_bytes())
        out.append((path.name, path))
    exported = workdir / "tracer-mix.export.jsonl"
    subprocess.run([str(RAMWATCH), "trace", "export", str(DATA / "tracer-mix.bin"), "-o", str(exported)],
                   check=True)
    out.append((exported.name, exported))
    varied = workdir / "varied.jsonl"
    varied.write_text(varied_trace())
    out.append((varied.name, varied))
    # the same lines cut short by a line that is refused, in the middle
    broken = workdir / "varied-broken.jsonl"
    text = varied_trace().splitlines()
    text.insert(1700, '{"v":3,"seq":1700,"kind":"alloc","address":1,"len":-1}')
    broken.write_text("\n".join(text) + "\n")
    out.append((broken.name, broken))
    return out


def summaries(ramwatch, workdir):
    """The text kept for every trace and options."""
    parts = []
    for name, path in traces(workdir):
        for options in OPTIONS:
            # run from the trace's folder with its bare name, so messages
            # name it the same wherever the tree is
            p = subprocess.run([str(ramwatch), "trace", "summary", *options, path.name], cwd=path.parent,
                               capture_output=True, text=True, timeout=120)
            parts.append(f"### {name} {' '.join(options)}\n### exit {p.returncode}\n{p.stdout}"
                         f"### stderr\n{p.stderr.replace(path.name, name)}")
    return "".join(parts)


def test_summaries_are_the_ones_kept(tmp_path):
    got = summaries(RAMWATCH, tmp_path)
    kept = KEPT.read_text()
    if got != kept:
        # the first case that differs, for the message
        g, k = got.split("### "), kept.split("### ")
        for a, b in zip(g, k):
            assert a == b
        assert len(g) == len(k)
    assert "### exit 0" in got and "### exit 1" in got


def test_a_binary_trace_and_its_export_say_the_same(tmp_path):
    """The binary replay and the JSON Lines replay of the same events agree,
    under every set of options."""
    exported = tmp_path / "tracer-mix.jsonl"
    subprocess.run([str(RAMWATCH), "trace", "export", str(DATA / "tracer-mix.bin"), "-o", str(exported)],
                   check=True)
    texts = []
    for options in OPTIONS:
        binary, jsonl = (subprocess.run([str(RAMWATCH), "trace", "summary", *options, str(p)], capture_output=True,
                                        text=True, timeout=120) for p in (DATA / "tracer-mix.bin", exported))
        assert binary.returncode == jsonl.returncode == 0, (binary.stderr, jsonl.stderr)
        assert binary.stdout == jsonl.stdout, options
        texts.append(binary.stdout)
    # the tracer's trace is replayed at its own layer by default, events and all
    assert "memtrace layer=logical sort=retained events=3000 allocations=" in texts[0]
    assert " allocations=0 " not in texts[0].splitlines()[1]


def test_the_varied_trace_takes_both_parsers(tmp_path):
    """The varied trace is worth its keep only if its lines go both ways:
    some to the fast parser, some to the general one (an escape, a float)."""
    text = varied_trace()
    assert '\\u00e9' in text and '"ts":1.5e3' in text and ', "' in text
    p = subprocess.run([str(RAMWATCH), "trace", "summary", "-"], input=text, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "capture_integrity=unbalanced_events events=3041 " in p.stdout


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        KEPT.write_text(summaries(RAMWATCH, Path(d)))
    print(f"wrote {KEPT}")
