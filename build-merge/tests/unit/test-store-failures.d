build-merge/tests/unit/test-store-failures.o: \
 tests/unit/test-store-failures.c tests/unit/test-store-lib.h \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h tests/unit/fixtures-census.h scanner/scan.h \
 common/error.h common/limits.h scanner/region-events.h \
 common/region-event-kind.h schema/store-migrations.h schema/store.h \
 schema/sample-row.h
tests/unit/test-store-lib.h:
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
scanner/region-events.h:
common/region-event-kind.h:
schema/store-migrations.h:
schema/store.h:
schema/sample-row.h:
