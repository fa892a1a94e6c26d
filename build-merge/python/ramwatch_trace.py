"""Name the phases of a Python program for ramwatch's allocation tracer.

Under `ramwatch trace record`, the tracer library is preloaded into the
interpreter and this module (on PYTHONPATH) calls its scope functions
through ctypes; without the tracer, every call does nothing, so a program
can keep its phases in:

    import ramwatch_trace

    with ramwatch_trace.scope("decode"):
        decode()

The allocations made inside the block are in scope "root/decode" of the
trace (nested blocks nest: "root/decode/huffman").  See ramwatch-trace(3).
"""

import contextlib
import ctypes

__all__ = ["active", "enter", "exit", "scope"]

_lib = ctypes.CDLL(None)
try:
    _enter = _lib.ramwatch_trace_scope_enter
    _exit = _lib.ramwatch_trace_scope_exit
    for _f in (_enter, _exit):
        _f.argtypes = [ctypes.c_char_p]
        _f.restype = ctypes.c_int
except AttributeError:
    _enter = _exit = None


def active():
    """Whether the tracer is loaded in this process."""
    return _enter is not None


def _call(fn, name):
    if fn is None:
        return 0
    if not isinstance(name, bytes):
        name = str(name).encode()
    r = fn(name)
    if r < 0:
        raise OSError(-r, "ramwatch_trace: scope %r refused" % (name,))
    return r


def enter(name):
    """Enters scope name (no '/') below the current one."""
    return _call(_enter, name)


def exit(name):
    """Leaves scope name, which must be the innermost."""
    return _call(_exit, name)


@contextlib.contextmanager
def scope(name):
    """The block's allocations are in scope name."""
    enter(name)
    try:
        yield
    finally:
        exit(name)
