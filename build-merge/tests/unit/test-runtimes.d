build-merge/tests/unit/test-runtimes.o: tests/unit/test-runtimes.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/runtimes.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/runtimes.h:
