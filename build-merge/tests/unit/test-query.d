build-merge/tests/unit/test-query.o: tests/unit/test-query.c \
 tests/unit/query-testlib.h tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h scanner/census.h \
 scanner/census-counters.h scanner/gpu.h scanner/proc-parse.h \
 tests/unit/fixtures-census.h scanner/scan.h common/error.h \
 common/limits.h schema/query.h schema/store.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h common/util.h
tests/unit/query-testlib.h:
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
tests/unit/fixtures-census.h:
scanner/scan.h:
common/error.h:
common/limits.h:
schema/query.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
common/util.h:
