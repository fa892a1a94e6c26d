build-merge/trace/trace-text.o: trace/trace-text.c trace/trace-jsonw.h \
 trace/trace-report.h trace/trace-analyzer.h trace/trace-counters.h \
 trace/trace-event.h common/error.h common/limits.h common/macro.h \
 trace/trace-ledger.h trace/trace-scopes.h common/hashtab.h \
 trace/trace-integrity.h trace/trace-rank.h trace/trace-symbols.h \
 common/text.h
trace/trace-jsonw.h:
trace/trace-report.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-integrity.h:
trace/trace-rank.h:
trace/trace-symbols.h:
common/text.h:
