build-merge/client/cmd-metrics.o: client/cmd-metrics.c client/ask.h \
 common/paths.h client/commands.h client/command-table.h \
 client/control-client.h common/error.h common/limits.h common/macro.h
client/ask.h:
common/paths.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
