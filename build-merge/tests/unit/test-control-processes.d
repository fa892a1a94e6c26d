build-merge/tests/unit/test-control-processes.o: \
 tests/unit/test-control-processes.c tests/unit/testlib.h \
 scanner/classify.h scanner/classes.h scanner/region.h common/macro.h \
 scanner/smaps.h common/strpool.h common/units.h \
 daemon/control-processes.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/control-processes.h:
