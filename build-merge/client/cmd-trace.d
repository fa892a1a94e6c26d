build-merge/client/cmd-trace.o: client/cmd-trace.c client/commands.h \
 client/command-table.h common/macro.h trace/trace-analyzer.h \
 trace/trace-counters.h trace/trace-event.h common/error.h \
 common/limits.h trace/trace-ledger.h trace/trace-scopes.h \
 common/hashtab.h trace/trace-parse.h trace/trace-fast.h \
 trace/trace-general.h trace/trace-rank.h trace/trace-replay.h \
 trace/trace-report.h trace/trace-integrity.h trace/trace-symbols.h \
 common/units.h common/util.h
client/commands.h:
client/command-table.h:
common/macro.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
trace/trace-rank.h:
trace/trace-replay.h:
trace/trace-report.h:
trace/trace-integrity.h:
trace/trace-symbols.h:
common/units.h:
common/util.h:
