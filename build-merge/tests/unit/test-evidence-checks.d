build-merge/tests/unit/test-evidence-checks.o: \
 tests/unit/test-evidence-checks.c tests/unit/testlib.h \
 scanner/classify.h scanner/classes.h scanner/region.h common/macro.h \
 scanner/smaps.h common/strpool.h common/units.h \
 scanner/evidence-internal.h scanner/evidence.h scanner/memsource.h \
 common/util.h tests/unit/evidence-testlib.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/evidence-internal.h:
scanner/evidence.h:
scanner/memsource.h:
common/util.h:
tests/unit/evidence-testlib.h:
