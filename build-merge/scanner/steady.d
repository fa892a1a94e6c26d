build-merge/scanner/steady.o: scanner/steady.c scanner/steady.h \
 scanner/region.h common/limits.h common/fileio.h common/macro.h \
 scanner/smaps.h common/strpool.h
scanner/steady.h:
scanner/region.h:
common/limits.h:
common/fileio.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
