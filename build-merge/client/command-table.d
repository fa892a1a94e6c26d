build-merge/client/command-table.o: client/command-table.c \
 client/command-table.h client/ask.h common/paths.h client/commands.h \
 client/control-client.h common/error.h common/limits.h common/macro.h \
 schema/query.h common/units.h common/util.h
client/command-table.h:
client/ask.h:
common/paths.h:
client/commands.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
schema/query.h:
common/units.h:
common/util.h:
