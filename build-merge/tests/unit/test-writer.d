build-merge/tests/unit/test-writer.o: tests/unit/test-writer.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h daemon/gpu-watch.h common/limits.h common/log.h \
 scanner/scan.h common/error.h schema/store.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/writer.h
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
daemon/gpu-watch.h:
common/limits.h:
common/log.h:
scanner/scan.h:
common/error.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/writer.h:
