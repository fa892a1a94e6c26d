build-merge/client/ask.o: client/ask.c client/ask.h common/paths.h \
 client/commands.h client/command-table.h client/control-client.h \
 common/error.h common/limits.h common/macro.h common/fileio.h \
 common/timeparse.h common/util.h
client/ask.h:
common/paths.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
common/fileio.h:
common/timeparse.h:
common/util.h:
