build-merge/client/report-trace.o: client/report-trace.c \
 client/report-trace.h client/commands.h client/command-table.h \
 common/macro.h client/render-answer.h common/error.h common/limits.h \
 trace/trace-export.h common/region-event-kind.h common/timeparse.h \
 trace/trace-analyzer.h trace/trace-counters.h trace/trace-event.h \
 trace/trace-ledger.h trace/trace-scopes.h common/hashtab.h \
 trace/trace-integrity.h trace/trace-parse.h trace/trace-fast.h \
 trace/trace-general.h trace/trace-replay.h common/util.h
client/report-trace.h:
client/commands.h:
client/command-table.h:
common/macro.h:
client/render-answer.h:
common/error.h:
common/limits.h:
trace/trace-export.h:
common/region-event-kind.h:
common/timeparse.h:
trace/trace-analyzer.h:
trace/trace-counters.h:
trace/trace-event.h:
trace/trace-ledger.h:
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-integrity.h:
trace/trace-parse.h:
trace/trace-fast.h:
trace/trace-general.h:
trace/trace-replay.h:
common/util.h:
