"""make check-docs (tests/check-docs.py): the real tree passes, and a copy
of it fails, naming the document and the line, when a file or a function a
document names is gone, when a file cites a document the repository lacks,
and when a citation names a section its document does not have."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "tests", "check-docs.py")


def check(root):
    r = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout


def test_the_tree_passes():
    rc, out = check(ROOT)
    assert rc == 0, out


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the repository's files (no .git: the script then walks it)."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    dst = str(tmp_path_factory.mktemp("tree"))
    for f in filter(None, files):
        src = os.path.join(ROOT, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(dst, f))
    rc, out = check(dst)
    assert rc == 0, "the copy must pass before it is broken:\n" + out
    return dst


def edit(root, path, old, new, count=1):
    """Replaces old with new in root/path; returns the text before."""
    with open(os.path.join(root, path)) as f:
        text = f.read()
    assert text.count(old) >= count, f"{path} no longer holds {old!r}: update this test"
    with open(os.path.join(root, path), "w") as f:
        f.write(text.replace(old, new))
    return text


def restore(root, path, text):
    with open(os.path.join(root, path), "w") as f:
        f.write(text)


def test_a_file_the_architecture_names_is_gone(tree):
    path = os.path.join(tree, "daemon", "watched.c")
    os.rename(path, path + ".gone")
    try:
        rc, out = check(tree)
    finally:
        os.rename(path + ".gone", path)
    assert rc == 1
    assert re.search(r"^doc/architecture\.md:\d+: names watched\.c, which is not in the repository$", out, re.M), out


def test_a_function_renamed_in_the_code_only(tree):
    """fast_tier_sample renamed everywhere in the code: the documents that
    still name it fail, though comments may still mention the old name."""
    saved = {}
    for f in ("daemon/fast-tier.c", "daemon/fast-tier.h", "daemon/manager.c", "tests/unit/test-fast-tier.c",
                  "tests/windows/corewatch.c"):
        text = edit(tree, f, "fast_tier_sample(", "fast_tier_read_slot(")
        saved[f] = text
    try:
        rc, out = check(tree)
    finally:
        for f, text in saved.items():
            restore(tree, f, text)
    assert rc == 1
    assert re.search(r"^doc/architecture\.md:\d+: names fast_tier_sample, which the code does not have$", out, re.M), out


def test_a_static_function_named_with_its_file(tree):
    text = edit(tree, "daemon/manager.c", "let_go(", "release(", count=2)
    try:
        rc, out = check(tree)
    finally:
        restore(tree, "daemon/manager.c", text)
    assert rc == 1
    assert re.search(r"^doc/architecture\.md:\d+: names let_go in manager\.c, which does not define it$", out, re.M), out


def test_a_citation_of_a_document_outside_the_repository(tree):
    text = edit(tree, "scanner/scan.c", "(doc/design.md#reading-proc-measured-facts)", "(NOTES.md, \"Reading /proc\")")
    try:
        rc, out = check(tree)
    finally:
        restore(tree, "scanner/scan.c", text)
    assert rc == 1
    assert re.search(r"^scanner/scan\.c:\d+: cites NOTES\.md, which the repository does not hold$", out, re.M), out


def test_a_citation_of_a_section_that_is_gone(tree):
    text = edit(tree, "doc/design.md", "### The fast tier", "### Sampling every second")
    try:
        rc, out = check(tree)
    finally:
        restore(tree, "doc/design.md", text)
    assert rc == 1
    assert re.search(r"^daemon/sample\.h:\d+: cites doc/design\.md#the-fast-tier, a section doc/design\.md does not have$",
                     out, re.M), out


def test_a_document_path_that_is_gone(tree):
    path = os.path.join(tree, "doc", "trace-format.md")
    os.rename(path, path + ".gone")
    try:
        rc, out = check(tree)
    finally:
        os.rename(path + ".gone", path)
    assert rc == 1
    assert re.search(r"^trace/trace-event\.h:\d+: cites doc/trace-format\.md, which the repository does not hold$",
                     out, re.M), out
    assert re.search(r"^doc/memtrace-recording\.md:\d+: cites trace-format\.md", out, re.M), out
