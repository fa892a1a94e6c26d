"""Small objects in pymalloc's pools, in shapes whose in-use and free
bytes the pymalloc walker must find, for tests/integration/
test_heap_pymalloc.py and the capture tests/data/memimage/python3-pools.

    pymalloc-objects.py fragmented N   N bytes objects of seven sizes (35
                                       to 503 bytes: seven size classes),
                                       every ninth kept: most pools stay in
                                       use, mostly free
    pymalloc-objects.py dropped N      the same, one in 400 kept: most
                                       arenas are given back, the rest hold
                                       empty pools
    pymalloc-objects.py busy N         fragmented, then threads that make
                                       and drop objects without pause

Prints {"pid": ..., "python": "3.11"} when ready, then for each line
"stats" read on standard input prints sys._debugmallocstats() to standard
error and "done" to standard output; exits at the end of its input."""
import json
import os
import sys
import threading

# bytes(n) takes n + 33 bytes (n > 1: a one-byte bytes is shared)
SIZES = (2, 20, 60, 110, 200, 330, 470)


def made(n):
    return [bytes(SIZES[i % len(SIZES)]) for i in range(n)]


def churn(stop):
    while not stop.is_set():
        objs = made(20000)
        del objs[::2]
        objs.extend((i, str(i)) for i in range(5000))
        del objs


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    objs = made(n)
    kept = objs[:: 400 if mode == "dropped" else 9]
    del objs
    stop = threading.Event()
    threads = []
    if mode == "busy":
        threads = [threading.Thread(target=churn, args=(stop,)) for _ in range(2)]
        for t in threads:
            t.start()
    version = "%d.%d" % sys.version_info[:2]
    print(json.dumps({"pid": os.getpid(), "python": version, "kept": len(kept)}), flush=True)
    for line in sys.stdin:
        if line.strip() == "stats":
            sys._debugmallocstats()
            sys.stderr.flush()
            print("done", flush=True)
    stop.set()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
