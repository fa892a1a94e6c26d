build-merge/tests/unit/test-control-worker.o: \
 tests/unit/test-control-worker.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/control-worker.h common/error.h \
 common/limits.h common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/control-worker.h:
common/error.h:
common/limits.h:
common/util.h:
