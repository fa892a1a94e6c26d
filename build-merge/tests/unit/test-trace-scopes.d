build-merge/tests/unit/test-trace-scopes.o: \
 tests/unit/test-trace-scopes.c tests/unit/trace-testlib.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h common/limits.h common/macro.h trace/trace-ledger.h \
 trace/trace-scopes.h common/hashtab.h trace/trace-replay.h \
 trace/trace-parse.h trace/trace-fast.h trace/trace-general.h
tests/unit/trace-testlib.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-replay.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
