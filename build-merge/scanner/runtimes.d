build-merge/scanner/runtimes.o: scanner/runtimes.c scanner/runtimes.h \
 common/macro.h common/units.h
scanner/runtimes.h:
common/macro.h:
common/units.h:
