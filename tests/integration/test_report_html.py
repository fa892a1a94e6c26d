"""ramwatch report --html, end to end: a real daemon watching a real
process whose memory grows in phases cut by marks, the page written by the
client, its structure and figures checked against the daemon's own
answers, and the page rendered by a real browser (headless Chromium) with
no network at all, the screenshot read back pixel by pixel."""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import time
import zlib

import pytest

from conftest import RAMWATCH, MiB, run

from rwdaemon import fast_config

# the page's geometry (client/render-html-charts.c): the plot's bottom and
# top in pixels
PLOT_BOTTOM, PLOT_TOP = 300 - 26, 34

# the colour the page draws the class "other" in (the shapes helper's growth)
OTHER = (0x96, 0x96, 0x96)

# a mark whose name is markup, to see it escaped
HOSTILE = "train <b>&</b> 'x'"


def wait_for(predicate, what, timeout=20, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")


def rw(d, *args, check=0):
    return run(*args, "--socket", d.socket, check=check)


def censuses(d, pid, trigger):
    r = rw(d, "history", "--pid", pid, "--format", "json", check=None)
    if r.returncode != 0:
        return []
    return [c for c in json.loads(r.stdout)["censuses"] if trigger in (None, c["trigger"])]


def wait_census(d, pid, trigger, n=1):
    return wait_for(lambda: len(censuses(d, pid, trigger)) >= n, what=f"{n} {trigger} census(es) of {pid}")


def size(text):
    """A tick label ("64M", "1536M", "0") in bytes, by the one grammar."""
    m = re.fullmatch(r"(\d+)([KMGTPE]?)", text)
    assert m, text
    return int(m.group(1)) * 1024 ** " KMGTPE".index(m.group(2) or " ")


@pytest.fixture
def phased(tmp_path, shapes, daemons):
    """A watched shapes process: its first census, a mark "load", 64 MiB
    more, a mark with a hostile name, 128 MiB more, and a census that saw
    it all."""
    d = daemons(tmp_path, fast_config(f"Watch=pid:{shapes.pid}")).start()
    wait_census(d, shapes.pid, "first")
    rw(d, "mark", "--pid", shapes.pid, "load")
    wait_census(d, shapes.pid, "mark")
    time.sleep(1.2)  # CensusMinSpacing
    shapes.proc.send_signal(signal.SIGUSR1)
    shapes.read_until("growth")
    wait_census(d, shapes.pid, "growth")
    time.sleep(1.2)
    rw(d, "mark", "--pid", shapes.pid, HOSTILE)
    wait_census(d, shapes.pid, "mark", 2)
    time.sleep(1.2)
    for _ in range(2):
        shapes.proc.send_signal(signal.SIGUSR1)
        shapes.read_until("growth")
    # a growth census may catch a block half made, and what is left be
    # too little for another: then ask for one that sees all three whole
    # (not always: a census that saw what the one before saw has no class
    # that changed)
    def saw_all(trigger):
        return any(c["classes"].get("other", {}).get("private", 0) >= 192 * MiB
                   for c in censuses(d, shapes.pid, trigger))
    try:
        wait_for(lambda: saw_all("growth"), what="a growth census that saw it all", timeout=3)
    except AssertionError:
        rw(d, "scan", shapes.pid, "--daemon")
        wait_for(lambda: saw_all(None), what="a census after the last growth")
    time.sleep(1.5)  # a sample row after it
    return d, shapes


def paths(page, svg_id):
    """The path data of the svg with that id, by class."""
    svg = re.search(rf'<svg id="{svg_id}".*?</svg>', page, re.S)
    assert svg, f"no chart {svg_id}"
    found = {}
    for cls, d in re.findall(r'<path class="([^"]+)"[^>]* d="([^"]*)"', svg.group(0)):
        found[cls] = d
    return svg.group(0), found


def points(d):
    return [(float(x), float(y)) for x, y in re.findall(r"[MLZ]?(-?[\d.]+) (-?[\d.]+)", d)]


def axis_top(svg):
    """The size at the top of a chart's y axis, from its labels."""
    labels = re.findall(r'<text class="size" x="[\d.]+" y="([\d.]+)">([^<]+)</text>', svg)
    assert labels and labels[0][1] == "0"
    assert abs(float(labels[0][0]) - 4 - PLOT_BOTTOM) < 0.1 and abs(float(labels[-1][0]) - 4 - PLOT_TOP) < 0.1
    return size(labels[-1][1])


def value_at(y, top):
    return (PLOT_BOTTOM - y) / (PLOT_BOTTOM - PLOT_TOP) * top


def test_report_html(phased, tmp_path):
    d, shapes = phased
    out = tmp_path / "report.html"
    r = rw(d, "report", "--pid", shapes.pid, "--html", out)
    assert r.stdout == "" and r.stderr == ""
    assert [p for p in os.listdir(tmp_path) if p.startswith("report.html")] == ["report.html"]
    page = out.read_text()
    report = json.loads(rw(d, "report", "--pid", shapes.pid, "--format", "json").stdout)

    # one self-contained page: no script, nothing fetched, no URL at all
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    assert "<style>" in page
    for banned in ("<script", "http:", "https:", "src=", "url(", "@import", "<link", "<img", "<iframe"):
        assert banned not in page.lower(), banned
    assert f"<h1>Memory report: shapes (pid {shapes.pid})</h1>" in page

    # the memory chart: the lines and min-max bands of private and resident
    svg, found = paths(page, "memory")
    for cls in ("line private", "line resident", "band private", "band resident"):
        assert cls in found and len(points(found[cls])) >= 5, cls
    assert found["band private"].endswith("Z")
    # its highest point is the peak the report gives, on the axis drawn
    top = axis_top(svg)
    peak = report["peak"]["private"]
    assert peak >= 192 * MiB
    highest = min(y for _, y in points(found["band private"]))
    assert abs(value_at(highest, top) - peak) <= 0.01 * top
    # the line starts before the growth: its first point is below 64 MiB
    first = points(found["line private"])[0]
    assert value_at(first[1], top) < 64 * MiB

    # the peak of each phase as a labelled dot, the report's figures
    dots = re.findall(r'<g class="peak"><circle [^>]*/><text [^>]*>([\d.]+) MiB</text><title>', svg)
    assert len(dots) == 3
    for dot, phase in zip(dots, report["phases"]):
        assert abs(float(dot) * MiB - phase["peak_private"]) <= 0.005 * phase["peak_private"], (dot, phase)

    # marks labelled on both charts, the hostile name escaped
    escaped = "train &lt;b&gt;&amp;&lt;/b&gt; &#39;x&#39;"
    assert HOSTILE not in page and "<b>" not in page
    for chart in ("memory", "classes"):
        svg_c = re.search(rf'<svg id="{chart}".*?</svg>', page, re.S).group(0)
        labels = re.findall(r'<g class="mark"><line [^>]*/><text [^>]*>([^<]*)</text></g>', svg_c)
        assert labels == ["load", escaped], (chart, labels)

    # the classes over time as stacked areas: "other" holds the growth,
    # and the top of the stack at the last census is its private total
    svg, found = paths(page, "classes")
    assert "area other" in found, found.keys()
    top = axis_top(svg)
    last = report["last_census"]
    other = next(c for c in last["classes"] if c["key"] == "other")
    assert other["private"] >= 192 * MiB
    stack_top = min(y for cls, dd in found.items() if cls.startswith("area") for _, y in points(dd))
    total = sum(c["private"] for c in last["classes"])
    assert abs(value_at(stack_top, top) - total) <= 0.01 * top

    # peaks per phase, the last census's classes and regions, what is new
    for section in ("Peaks by phase", "The last census", "Memory by class", "Largest regions",
                    "New since the previous census", "Classes that changed"):
        assert section in page, section
    changed = page[page.index("<h3>Classes that changed</h3>"):]
    assert re.match(r'<h3>Classes that changed</h3>\n<table>.*?</thead><tbody>\n<tr><td><span class="key" '
                    r'style="background:#969696"></span>Other anonymous memory[^<]*</td>(<td class="n">[^<]*</td>){2}'
                    r'<td class="n">\+[\d.]+ MiB</td>', changed, re.S), changed[:600]
    phases = re.findall(r'<tr><td>([^<]*)</td><td class="t">\d{4}-', page)
    assert phases == ["(start)", "load", escaped]
    assert f"<p>Census #{last['census_id']} ({last['trigger']}) at " in page

    # the browser: the page rendered with no network, and not blank
    png = render(out, tmp_path)
    width, height, pixels = read_png(png)
    assert (width, height) == (1200, 2000)
    colours = {}
    for p in pixels:
        colours[p] = colours.get(p, 0) + 1
    assert len(colours) >= 16, f"{len(colours)} colours: blank?"
    assert colours.get((255, 255, 255), 0) < 0.97 * width * height
    assert colours.get(OTHER, 0) >= 2000, "no area of the class other"
    # the lines of the memory chart, above the classes chart: rows with a
    # stretch of a line's colour (or of it half over white, as a line
    # between two rows of pixels is drawn) far longer than any key of a
    # legend (12 pixels)
    classes_top = next(r for r in range(height) if pixels[r * width:(r + 1) * width].count(OTHER) >= 100)
    red = [p[0] - p[1] > 60 and abs(p[1] - p[2]) < 20 for p in pixels[:classes_top * width]]
    blue = [p[2] - p[0] > 60 and p[2] > p[1] for p in pixels[:classes_top * width]]
    for name, hits in (("private", red), ("resident", blue)):
        longest = max(sum(hits[r * width:(r + 1) * width]) for r in range(classes_top))
        assert longest >= 100, f"no {name} line: {longest} pixels at most in a row"
    if os.environ.get("RAMWATCH_REPORT_PNG"):
        shutil.copy(png, os.environ["RAMWATCH_REPORT_PNG"])

    # errors, on the same daemon (its setup is most of the test's time)
    errors(d, shapes, tmp_path / "errors")


def errors(d, shapes, tmp_path):
    tmp_path.mkdir()
    # a directory where the file should go: a clear error, nothing left
    target = tmp_path / "taken.html"
    target.mkdir()
    r = rw(d, "report", "--pid", shapes.pid, "--html", target, check=None)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"ramwatch: cannot write {target}: Is a directory\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith("taken.html.")]
    assert os.listdir(target) == []
    # a directory that does not exist
    missing = tmp_path / "no" / "report.html"
    r = rw(d, "report", "--pid", shapes.pid, "--html", missing, check=None)
    assert r.returncode == 1 and r.stderr == f"ramwatch: cannot write {missing}: No such file or directory\n"
    # an earlier page stays whole when a later one cannot be asked for
    good = tmp_path / "good.html"
    rw(d, "report", "--pid", shapes.pid, "--html", good)
    before = good.read_bytes()
    r = rw(d, "report", "--pid", "999999999", "--html", good, check=None)
    assert r.returncode == 1 and good.read_bytes() == before
    assert not [p for p in os.listdir(tmp_path) if p.startswith("good.html.")]
    # --html takes no --format or --out, and a name
    for extra in (["--format", "json"], ["--out", tmp_path / "x.md"]):
        r = rw(d, "report", "--pid", shapes.pid, "--html", good, *extra, check=None)
        assert r.returncode == 2 and "--html writes the page to its FILE" in r.stderr
    r = rw(d, "report", "--pid", shapes.pid, "--html", "", check=None)
    assert r.returncode == 2 and "--html takes a file name" in r.stderr


# ---------------------------------------------------------------- the browser


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium is not installed (Debian's chromium; make deps)")


def render(page, tmp_path):
    """The page as a PNG by headless Chromium, run in a network namespace
    of its own (unshare -n: no interface but a loopback that is down), so
    that nothing the page named could be fetched."""
    if os.geteuid() != 0:
        pytest.skip("a network namespace of its own (unshare -n) needs root")
    png = tmp_path / "report.png"
    profile = tmp_path / "chromium-profile"
    cmd = ["unshare", "-n", chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--hide-scrollbars",
           f"--screenshot={png}", "--window-size=1200,2000", f"file://{page}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, HOME=str(tmp_path)))
    assert r.returncode == 0 and png.exists(), r.stderr[-2000:]
    return png


def read_png(path):
    """(width, height, [(r, g, b), ...]) of an 8-bit RGB or RGBA PNG,
    not interlaced: what Chromium writes.  PNG (RFC 2083): chunks, the
    IDAT data zlib-compressed, each row with a filter byte."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    prev = bytearray(stride)
    pixels = []
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return width, height, pixels
