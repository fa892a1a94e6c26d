build-merge/tests/unit/test-scan-live.o: tests/unit/test-scan-live.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h common/fileio.h common/limits.h scanner/scan.h \
 common/error.h common/util.h
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
common/fileio.h:
common/limits.h:
scanner/scan.h:
common/error.h:
common/util.h:
