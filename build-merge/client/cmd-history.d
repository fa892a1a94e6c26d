build-merge/client/cmd-history.o: client/cmd-history.c client/ask.h \
 common/paths.h scanner/classes.h client/commands.h \
 client/command-table.h client/control-client.h common/error.h \
 common/limits.h common/macro.h client/render-answer.h \
 trace/trace-export.h common/region-event-kind.h client/style.h \
 common/units.h common/util.h
client/ask.h:
common/paths.h:
scanner/classes.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
client/style.h:
common/units.h:
common/util.h:
