"""The real program of the tracer's bench (bench/tracer-bench.py): CPython
building a dict of 300 000 entries, then writing it as JSON and reading it
back, run with PYTHONMALLOC=malloc so that every object is a malloc call.
It checks what it read, so the work cannot be skipped."""

import json

d = {"key%d" % i: [i, str(i) * 3, {"n": i}] for i in range(300_000)}
s = json.dumps(d)
back = json.loads(s)
assert len(back) == len(d) and back["key299999"][2]["n"] == 299_999
