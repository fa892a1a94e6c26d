build-merge/client/ramwatch.o: client/ramwatch.c client/commands.h \
 client/command-table.h common/macro.h common/util.h
client/commands.h:
client/command-table.h:
common/macro.h:
common/util.h:
