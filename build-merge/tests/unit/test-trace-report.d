build-merge/tests/unit/test-trace-report.o: \
 tests/unit/test-trace-report.c trace/trace-replay.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h common/limits.h common/macro.h trace/trace-ledger.h \
 trace/trace-scopes.h common/hashtab.h trace/trace-parse.h \
 trace/trace-fast.h trace/trace-general.h trace/trace-report.h \
 trace/trace-integrity.h trace/trace-rank.h trace/trace-symbols.h
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
trace/trace-report.h:
trace/trace-integrity.h:
trace/trace-rank.h:
trace/trace-symbols.h:
