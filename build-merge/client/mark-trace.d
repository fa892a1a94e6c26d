build-merge/client/mark-trace.o: client/mark-trace.c client/mark-trace.h \
 common/fileio.h common/macro.h
client/mark-trace.h:
common/fileio.h:
common/macro.h:
