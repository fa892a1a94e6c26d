build-merge/scanner/smaps.o: scanner/smaps.c scanner/smaps-internal.h \
 scanner/smaps.h scanner/region.h common/limits.h common/macro.h \
 common/strpool.h common/util.h
scanner/smaps-internal.h:
scanner/smaps.h:
scanner/region.h:
common/limits.h:
common/macro.h:
common/strpool.h:
common/util.h:
