build-merge/client/cmd-mark.o: client/cmd-mark.c client/ask.h \
 common/paths.h client/commands.h client/command-table.h \
 client/control-client.h common/error.h common/limits.h common/macro.h \
 client/mark-trace.h client/render-answer.h trace/trace-export.h \
 common/region-event-kind.h common/timeparse.h common/util.h
client/ask.h:
common/paths.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
client/mark-trace.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
common/timeparse.h:
common/util.h:
