build-merge/tests/unit/test-trace-replay.o: \
 tests/unit/test-trace-replay.c common/limits.h trace/trace-replay.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h common/macro.h trace/trace-ledger.h trace/trace-scopes.h \
 common/hashtab.h trace/trace-parse.h trace/trace-fast.h \
 trace/trace-general.h
common/limits.h:
trace/trace-replay.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
