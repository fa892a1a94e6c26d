build-merge/tests/unit/test-selector.o: tests/unit/test-selector.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h common/limits.h daemon/selector.h common/error.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
common/limits.h:
daemon/selector.h:
common/error.h:
