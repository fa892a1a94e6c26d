build-merge/scanner/memimage.o: scanner/memimage.c scanner/memimage.h \
 scanner/memsource.h common/limits.h common/macro.h common/util.h
scanner/memimage.h:
scanner/memsource.h:
common/limits.h:
common/macro.h:
common/util.h:
