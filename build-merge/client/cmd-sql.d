build-merge/client/cmd-sql.o: client/cmd-sql.c client/commands.h \
 client/command-table.h common/fileio.h common/limits.h common/macro.h \
 common/paths.h schema/query.h common/error.h client/table.h \
 common/text.h common/units.h common/util.h
client/commands.h:
client/command-table.h:
common/fileio.h:
common/limits.h:
common/macro.h:
common/paths.h:
schema/query.h:
common/error.h:
client/table.h:
common/text.h:
common/units.h:
common/util.h:
