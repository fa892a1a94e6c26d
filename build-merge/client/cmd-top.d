build-merge/client/cmd-top.o: client/cmd-top.c client/ask.h \
 common/paths.h client/commands.h client/command-table.h \
 client/control-client.h common/error.h common/limits.h common/macro.h \
 client/render-answer.h trace/trace-export.h common/region-event-kind.h \
 common/text.h common/timeparse.h client/top-ask.h client/top-layout.h \
 client/top-model.h scanner/classes.h client/top-screen.h common/units.h \
 common/util.h
client/ask.h:
common/paths.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
common/text.h:
common/timeparse.h:
client/top-ask.h:
client/top-layout.h:
client/top-model.h:
scanner/classes.h:
client/top-screen.h:
common/units.h:
common/util.h:
