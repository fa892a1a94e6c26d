build-merge/tests/unit/test-change-watch.o: \
 tests/unit/test-change-watch.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/change-watch.h common/fileio.h \
 common/limits.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/change-watch.h:
common/fileio.h:
common/limits.h:
