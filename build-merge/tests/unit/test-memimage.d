build-merge/tests/unit/test-memimage.o: tests/unit/test-memimage.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h common/limits.h scanner/memimage.h scanner/memsource.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
common/limits.h:
scanner/memimage.h:
scanner/memsource.h:
