build-merge/tests/unit/test-schedule.o: tests/unit/test-schedule.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h daemon/config.h daemon/selector.h common/error.h \
 common/limits.h daemon/sample.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/gpu.h scanner/proc-parse.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 daemon/schedule.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
daemon/sample.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/schedule.h:
