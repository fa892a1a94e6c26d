build-merge/client/cmd-trace-record.o: client/cmd-trace-record.c \
 common/limits.h client/commands.h client/command-table.h common/macro.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 common/error.h trace/trace-ledger.h trace/trace-scopes.h \
 common/hashtab.h trace/trace-integrity.h trace/trace-parse.h \
 trace/trace-fast.h trace/trace-general.h trace/trace-replay.h \
 common/units.h common/util.h
common/limits.h:
client/commands.h:
client/command-table.h:
common/macro.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
common/error.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-integrity.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
trace/trace-replay.h:
common/units.h:
common/util.h:
