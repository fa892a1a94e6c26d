build-merge/tests/unit/test-pidmap.o: tests/unit/test-pidmap.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h daemon/pidmap.h common/hashtab.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/pidmap.h:
common/hashtab.h:
