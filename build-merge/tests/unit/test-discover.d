build-merge/tests/unit/test-discover.o: tests/unit/test-discover.c \
 tests/unit/proc-fixture.h tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h common/limits.h daemon/change-watch.h \
 daemon/config.h daemon/selector.h common/error.h daemon/discover.h \
 daemon/discover-known.h common/hashtab.h scanner/proc-parse.h \
 daemon/proc-connector.h daemon/target.h daemon/census-tier.h \
 daemon/census-take.h scanner/gpu.h scanner/steady.h schema/store.h \
 scanner/census.h scanner/census-counters.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/export-text.h \
 daemon/schedule.h daemon/fast-tier.h daemon/sample.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h \
 scanner/procfs.h
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
daemon/config.h:
daemon/selector.h:
common/error.h:
daemon/discover.h:
daemon/discover-known.h:
common/hashtab.h:
scanner/proc-parse.h:
daemon/proc-connector.h:
daemon/target.h:
daemon/census-tier.h:
daemon/census-take.h:
scanner/gpu.h:
scanner/steady.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/fast-tier.h:
daemon/sample.h:
daemon/gpu-watch.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
scanner/procfs.h:
