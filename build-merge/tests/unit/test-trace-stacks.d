build-merge/tests/unit/test-trace-stacks.o: \
 tests/unit/test-trace-stacks.c common/limits.h trace/trace-binary.h \
 trace/trace-report.h trace/trace-analyzer.h trace/trace-counters.h \
 trace/trace-event.h common/error.h common/macro.h trace/trace-ledger.h \
 trace/trace-scopes.h common/hashtab.h trace/trace-integrity.h \
 trace/trace-rank.h trace/trace-symbols.h tests/unit/trace-testlib.h \
 trace/trace-replay.h trace/trace-parse.h trace/trace-fast.h \
 trace/trace-general.h
common/limits.h:
trace/trace-binary.h:
trace/trace-report.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-integrity.h:
trace/trace-rank.h:
trace/trace-symbols.h:
tests/unit/trace-testlib.h:
trace/trace-replay.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
