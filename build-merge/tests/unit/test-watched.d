build-merge/tests/unit/test-watched.o: tests/unit/test-watched.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h tests/unit/target-testlib.h daemon/target.h \
 daemon/census-tier.h daemon/census-take.h scanner/gpu.h scanner/steady.h \
 schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/proc-parse.h common/error.h common/limits.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 daemon/config.h daemon/selector.h daemon/export-text.h daemon/schedule.h \
 daemon/fast-tier.h daemon/sample.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
tests/unit/target-testlib.h:
daemon/target.h:
daemon/census-tier.h:
daemon/census-take.h:
scanner/gpu.h:
scanner/steady.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/proc-parse.h:
common/error.h:
common/limits.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/config.h:
daemon/selector.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/fast-tier.h:
daemon/sample.h:
daemon/gpu-watch.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
