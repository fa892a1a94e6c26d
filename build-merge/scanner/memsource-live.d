build-merge/scanner/memsource-live.o: scanner/memsource-live.c \
 scanner/memsource.h common/limits.h common/macro.h common/util.h
scanner/memsource.h:
common/limits.h:
common/macro.h:
common/util.h:
