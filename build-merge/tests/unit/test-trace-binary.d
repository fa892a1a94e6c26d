build-merge/tests/unit/test-trace-binary.o: \
 tests/unit/test-trace-binary.c trace/trace-binary.h trace/trace-replay.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h common/limits.h common/macro.h trace/trace-ledger.h \
 trace/trace-scopes.h common/hashtab.h trace/trace-parse.h \
 trace/trace-fast.h trace/trace-general.h
trace/trace-binary.h:
trace/trace-replay.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
