build-merge/tests/unit/test-store-read-gpu.o: \
 tests/unit/test-store-read-gpu.c tests/unit/test-store-read-lib.h \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h tests/unit/fixtures-census.h scanner/scan.h \
 common/error.h common/limits.h scanner/region-events.h \
 common/region-event-kind.h schema/store-read.h schema/store.h \
 schema/sample-row.h scanner/census-json.h schema/store-migrations.h \
 schema/store-read-internal.h common/json-field.h schema/store-internal.h \
 common/hashtab.h common/text.h common/util.h
tests/unit/test-store-read-lib.h:
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
schema/store-read.h:
schema/store.h:
schema/sample-row.h:
scanner/census-json.h:
schema/store-migrations.h:
schema/store-read-internal.h:
common/json-field.h:
schema/store-internal.h:
common/hashtab.h:
common/text.h:
common/util.h:
