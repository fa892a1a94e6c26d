build-merge/tests/unit/test-fast-tier.o: tests/unit/test-fast-tier.c \
 tests/unit/proc-fixture.h tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h common/limits.h daemon/change-watch.h \
 daemon/fast-tier.h scanner/proc-parse.h daemon/sample.h schema/store.h \
 scanner/census.h scanner/census-counters.h scanner/gpu.h common/error.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 scanner/steady.h scanner/procfs.h daemon/target.h daemon/census-tier.h \
 daemon/census-take.h daemon/config.h daemon/selector.h \
 daemon/export-text.h daemon/schedule.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h
tests/unit/proc-fixture.h:
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
common/limits.h:
daemon/change-watch.h:
daemon/fast-tier.h:
scanner/proc-parse.h:
daemon/sample.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
common/error.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
scanner/steady.h:
scanner/procfs.h:
daemon/target.h:
daemon/census-tier.h:
daemon/census-take.h:
daemon/config.h:
daemon/selector.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/gpu-watch.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
