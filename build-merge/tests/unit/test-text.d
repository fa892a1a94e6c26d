build-merge/tests/unit/test-text.o: tests/unit/test-text.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h common/text.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
common/text.h:
