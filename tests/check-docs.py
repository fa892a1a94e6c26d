#!/usr/bin/env python3
"""make check-docs: the documents say what the code is, and point only at
what the repository holds.

Two checks, over the repository's files (those git tracks or would track:
new files count before they are committed; in a tree without .git, every
file under the root but build/):

  names      Every file and every function or constant that README.md,
             CONTRIBUTING.md, tests/README.md and doc/*.md name between
             backticks must exist: a path (`daemon/fast-tier.c`,
             `tests/data/fuzz/<target>/`), a file's name (`fast-tier.c`,
             `control*.c`), a function in a file
             (`manager.c:on_sample`), or an identifier with an
             underscore or a trailing "()".  An identifier with a module's
             prefix (`fast_tier_sample`, from fast-tier.c), an RW_
             constant or one written with "()" must be in the code itself
             (C, SQL, Python, shell, the Makefile; comments left out, so a
             name that only a comment still mentions counts as gone); any
             other (a kernel interface such as `move_pages`, a Makefile
             variable) must be mentioned somewhere in the repository
             besides the documents.  Fenced code blocks are examples and
             are not read.

  citations  Every document a file cites must be in the repository: any
             name ending in ".md" (found beside the citing file, from the
             root, or by its name anywhere in the tree) and any path that
             starts with "doc/".  A citation with an anchor
             (`doc/design.md#the-census`) must name a heading of that
             document.

Exit status 0 when both hold, 1 with one line per problem ("FILE:LINE:
what"), 2 for a bad invocation.  --root DIR checks another tree (the
test of this script breaks a copy on purpose)."""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys

# The documents whose names are checked.
NAMED_IN = ["README.md", "CONTRIBUTING.md", "tests/README.md", "doc/*.md"]

# Extensions of the files a document names by their bare name: sources,
# scripts and documents (not what a command writes: ramwatch.db, t.jsonl).
FILE_EXTENSIONS = ("c", "h", "py", "sql", "sh", "md", "dict")

# Names that look like documents but are files a command writes, in the
# README's examples and the tests (`ramwatch report --out report.md`).
WRITTEN_NOT_CITED = {"report.md", "x.md"}

# Where identifiers are looked for: the code, without its comments.
CODE_EXTENSIONS = (".c", ".h", ".py", ".sql", ".sh")
CODE_NAMES = ("Makefile",)

# The folders whose files' names make the module prefixes of functions
# (fast-tier.c: fast_tier_*).
SOURCE_DIRS = ("common", "scanner", "trace", "tracer", "schema", "daemon", "client")

# Fixtures hold captured text (paths of other programs' files), not
# citations or code; this script and its test name missing documents and
# functions on purpose, as examples.
NOT_READ = ("tests/data/", "tests/check-docs.py", "tests/integration/test_check_docs.py")


def tracked_files(root):
    """The repository's files, relative to root, sorted."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"], capture_output=True, check=True).stdout
        files = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        files = [f for f in files if os.path.exists(os.path.join(root, f))]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not (rel == "." and x in ("build", ".git"))]
        for n in names:
            files.append(os.path.normpath(os.path.join(rel, n)))
    return sorted(files)


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


def strip_comments(text, ext):
    """The code of a file without its comments (strings kept: JSON keys and
    SQL live there)."""
    if ext in (".c", ".h"):
        out, i, n = [], 0, len(text)
        while i < n:
            c = text[i]
            if c == "/" and text.startswith("/*", i):
                j = text.find("*/", i + 2)
                i = n if j < 0 else j + 2
                out.append(" ")
            elif c == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif c in "\"'":
                j = i + 1
                while j < n and text[j] != c and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
                out.append(text[i:j + 1])
                i = j + 1
            else:
                out.append(c)
                i += 1
        return "".join(out)
    if ext == ".sql":
        return re.sub(r"--[^\n]*", " ", text)
    if ext in (".py", ".sh", ""):
        # a '#' that starts a comment: not inside a word or a string's start
        return re.sub(r"(?m)(^|\s)#[^\n]*", r"\1", text)
    return text


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = tracked_files(root)
        self.file_set = set(self.files)
        self.dirs = {os.path.dirname(f) for f in self.files}
        for f in self.files:
            p = os.path.dirname(f)
            while p:
                self.dirs.add(p)
                p = os.path.dirname(p)
        self.by_name = {}
        for f in self.files:
            self.by_name.setdefault(os.path.basename(f), []).append(f)
        self.top = {f.split("/", 1)[0] for f in self.files}
        self._words = None
        self._mentions = None
        self._file_words = {}
        self._headings = {}
        self.prefixes = {"RW_"}
        for f in self.files:
            if f.split("/", 1)[0] in SOURCE_DIRS and f.endswith((".c", ".h")):
                base = os.path.basename(f).split(".", 1)[0]
                self.prefixes.add(base.replace("-", "_") + "_")

    def code_words(self, path):
        """The identifiers of one file's code, comments left out."""
        if path not in self._file_words:
            ext = os.path.splitext(path)[1]
            if os.path.basename(path) == "Makefile":
                ext = ""
            text = read_text(os.path.join(self.root, path)) or ""
            self._file_words[path] = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", strip_comments(text, ext)))
        return self._file_words[path]

    def is_code(self, f):
        return (f.endswith(CODE_EXTENSIONS) or os.path.basename(f) in CODE_NAMES) and not f.startswith(NOT_READ)

    def words(self):
        """The identifiers of the code, comments left out."""
        if self._words is None:
            self._words = set()
            for f in self.files:
                if self.is_code(f):
                    self._words |= self.code_words(f)
        return self._words

    def mentions(self):
        """Every word of the tree but the documents': the code with its
        comments, the man pages, the packaging."""
        if self._mentions is None:
            self._mentions = set()
            for f in self.files:
                if f.endswith(".md") or f.startswith(NOT_READ):
                    continue
                text = read_text(os.path.join(self.root, f))
                if text is not None:
                    self._mentions |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        return self._mentions

    def ours(self, name):
        """Whether a name is the code's own (a module's prefix, RW_): it
        must then be in the code itself, not only in a comment."""
        return any(name.startswith(p) for p in self.prefixes)

    def glob(self, pattern):
        """Tracked files or directories matching a path pattern."""
        pattern = pattern.rstrip("/")
        hits = [f for f in self.files if fnmatch.fnmatchcase(f, pattern)]
        hits += [d for d in self.dirs if fnmatch.fnmatchcase(d, pattern)]
        return hits

    def by_basename(self, pattern):
        if not any(ch in pattern for ch in "*?["):
            return self.by_name.get(pattern, [])
        return [f for name, fs in self.by_name.items() if fnmatch.fnmatchcase(name, pattern) for f in fs]

    def headings(self, path):
        """The anchors of a Markdown file's headings, as GitHub makes them."""
        if path not in self._headings:
            anchors = set()
            text = read_text(os.path.join(self.root, path)) or ""
            fenced = False
            for line in text.splitlines():
                if line.startswith("```"):
                    fenced = not fenced
                    continue
                m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    anchors.add(slug(m.group(1)))
            self._headings[path] = anchors
        return self._headings[path]


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[`*_]", lambda m: "_" if m.group(0) == "_" else "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def inline_code(text):
    """(line number, token) of every `...` outside fenced blocks."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in re.finditer(r"(`+)(.+?)\1", line):
            yield n, m.group(2).strip()


def placeholder_glob(path):
    """`tests/data/fuzz/<target>/` and `fuzz-NAME.c` as glob patterns."""
    return re.sub(r"<[^>]*>|\b[A-Z][A-Z]+\b(?=[./-]|$)", "*", path)


IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FILE_FUNC = re.compile(r"^([\w./*-]+\.(?:c|h|py)):([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?$")


def check_names(tree, problems):
    docs = sorted({d for pat in NAMED_IN for d in glob.glob(os.path.join(tree.root, pat))})
    for doc in docs:
        rel = os.path.relpath(doc, tree.root)
        text = read_text(doc) or ""
        for line, token in inline_code(text):
            where = f"{rel}:{line}"
            m = FILE_FUNC.match(token)
            if m:
                files = find_file(tree, m.group(1))
                if not files:
                    problems.append(f"{where}: names {m.group(1)}, which is not in the repository")
                elif not any(m.group(2) in tree.code_words(f) for f in files):
                    problems.append(f"{where}: names {m.group(2)} in {m.group(1)}, which does not define it")
                continue
            for part in token.split(" "):
                check_one(tree, where, part.rstrip(",.;:"), problems)


def find_file(tree, name):
    pattern = placeholder_glob(name)
    if "/" in name:
        return tree.glob(pattern)
    return tree.by_basename(pattern)


def check_one(tree, where, token, problems):
    if not token:
        return
    path = token.split("#", 1)[0]
    first = path.split("/", 1)[0]
    if "/" in path and first in tree.top and not path.startswith("/"):
        if not tree.glob(placeholder_glob(path)):
            problems.append(f"{where}: names {path}, which is not in the repository")
        return
    if "/" not in path and "." in path:
        ext = path.rsplit(".", 1)[1]
        if ext in FILE_EXTENSIONS and path not in WRITTEN_NOT_CITED and re.match(r"^[\w*][\w*.-]*$", path):
            if not tree.by_basename(placeholder_glob(path)) and not (ext == "h" and included(tree, path)):
                problems.append(f"{where}: names {path}, which is not in the repository")
        return
    name = token[:-2] if token.endswith("()") else token
    if not IDENT.match(name) or not ("_" in name.strip("_") or token.endswith("()")):
        return
    if tree.ours(name) or token.endswith("()"):
        if name not in tree.words():
            problems.append(f"{where}: names {name}, which the code does not have")
    elif name not in tree.mentions():
        problems.append(f"{where}: names {name}, which nothing in the repository but the documents mentions")


def included(tree, header):
    """Whether the code includes a header of the system (sqlite3.h)."""
    rx = re.compile(r'#\s*include\s*[<"]' + re.escape(header) + r'[>"]')
    return any(rx.search(read_text(os.path.join(tree.root, f)) or "") for f in tree.files
               if f.endswith((".c", ".h")))


CITE_MD = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)(#[\w-]+)?\b")
CITE_DOC = re.compile(r"(?<![\w/.-])(doc/[\w./-]*[\w-])(#[\w-]+)?")


def check_citations(tree, problems):
    for f in tree.files:
        if f.startswith(NOT_READ):
            continue
        text = read_text(os.path.join(tree.root, f))
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            seen = set()
            for rx in (CITE_MD, CITE_DOC):
                for m in rx.finditer(line):
                    cited, anchor = m.group(1), m.group(2)
                    if (cited, anchor) in seen or cited in WRITTEN_NOT_CITED:
                        continue
                    seen.add((cited, anchor))
                    target = resolve(tree, f, cited)
                    if target is None:
                        problems.append(f"{f}:{n}: cites {cited}, which the repository does not hold")
                    elif anchor and target.endswith(".md") and anchor[1:] not in tree.headings(target):
                        problems.append(f"{f}:{n}: cites {cited}{anchor}, a section {cited} does not have")


def resolve(tree, citing, cited):
    cited = cited.rstrip("/.")
    for candidate in (cited, os.path.normpath(os.path.join(os.path.dirname(citing), cited))):
        if candidate in tree.file_set or candidate in tree.dirs:
            return candidate
    if "/" not in cited and tree.by_name.get(cited):
        return tree.by_name[cited][0]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    tree = Tree(os.path.abspath(args.root))
    problems = []
    check_names(tree, problems)
    check_citations(tree, problems)
    for p in problems:
        print(p)
    if problems:
        print(f"check-docs: {len(problems)} problems", file=sys.stderr)
        return 1
    print("check-docs: every file, function and document the documents name is in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
