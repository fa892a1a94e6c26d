build-merge/trace/trace-rank.o: trace/trace-rank.c trace/trace-rank.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h common/limits.h common/macro.h trace/trace-ledger.h \
 trace/trace-scopes.h common/hashtab.h
trace/trace-rank.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
