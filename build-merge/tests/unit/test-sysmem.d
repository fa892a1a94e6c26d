build-merge/tests/unit/test-sysmem.o: tests/unit/test-sysmem.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h daemon/sysmem.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/gpu.h scanner/proc-parse.h \
 common/error.h common/limits.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/sysmem.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
common/error.h:
common/limits.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
