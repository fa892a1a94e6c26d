build-merge/tests/unit/test-gpu-census.o: tests/unit/test-gpu-census.c \
 tests/unit/gpu-testlib.h tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h scanner/census-json.h common/error.h \
 common/limits.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h client/render-census.h scanner/scan.h
tests/unit/gpu-testlib.h:
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
client/render-census.h:
scanner/scan.h:
