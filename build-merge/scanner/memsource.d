build-merge/scanner/memsource.o: scanner/memsource.c scanner/memsource.h \
 common/util.h
scanner/memsource.h:
common/util.h:
