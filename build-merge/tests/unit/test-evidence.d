build-merge/tests/unit/test-evidence.o: tests/unit/test-evidence.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h scanner/evidence-internal.h scanner/evidence.h \
 scanner/memsource.h common/limits.h scanner/memimage.h scanner/scan.h \
 common/error.h common/util.h tests/unit/evidence-testlib.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/evidence-internal.h:
scanner/evidence.h:
scanner/memsource.h:
common/limits.h:
scanner/memimage.h:
scanner/scan.h:
common/error.h:
common/util.h:
tests/unit/evidence-testlib.h:
