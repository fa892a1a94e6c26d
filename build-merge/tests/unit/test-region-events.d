build-merge/tests/unit/test-region-events.o: \
 tests/unit/test-region-events.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h common/util.h scanner/census.h \
 scanner/census-counters.h scanner/gpu.h scanner/proc-parse.h \
 scanner/region-events.h common/region-event-kind.h scanner/scan.h \
 common/error.h common/limits.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
common/util.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region-events.h:
common/region-event-kind.h:
scanner/scan.h:
common/error.h:
common/limits.h:
