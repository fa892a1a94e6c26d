build-merge/tests/unit/test-store-aside.o: tests/unit/test-store-aside.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h daemon/store-aside.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/store-aside.h:
