build-merge/tests/unit/test-classify.o: tests/unit/test-classify.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/scan.h common/error.h common/limits.h \
 scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/scan.h:
common/error.h:
common/limits.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
common/util.h:
