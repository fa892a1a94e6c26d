build-merge/tests/unit/test-win-census.o: tests/unit/test-win-census.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census-json.h common/error.h common/limits.h \
 scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h common/fileio.h common/util.h scanner/win-capture.h \
 scanner/win-census.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/census-json.h:
common/error.h:
common/limits.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
common/fileio.h:
common/util.h:
scanner/win-capture.h:
scanner/win-census.h:
