build-merge/trace/trace-integrity.o: trace/trace-integrity.c \
 trace/trace-integrity.h trace/trace-analyzer.h trace/trace-counters.h \
 trace/trace-event.h common/error.h common/limits.h common/macro.h \
 trace/trace-ledger.h trace/trace-scopes.h common/hashtab.h
trace/trace-integrity.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
