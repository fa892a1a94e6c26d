build-merge/tests/unit/test-census-json.o: tests/unit/test-census-json.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census-json.h common/error.h common/limits.h \
 scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h scanner/scan.h common/util.h
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
scanner/scan.h:
common/util.h:
