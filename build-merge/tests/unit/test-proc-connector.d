build-merge/tests/unit/test-proc-connector.o: \
 tests/unit/test-proc-connector.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/proc-connector.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/proc-connector.h:
