build-merge/client/table.o: client/table.c client/table.h common/macro.h
client/table.h:
common/macro.h:
