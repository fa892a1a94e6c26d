build-merge/tests/unit/test-export.o: tests/unit/test-export.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h daemon/export-text.h daemon/config.h \
 daemon/selector.h common/error.h common/limits.h schema/store.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 daemon/export.h common/text.h
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
daemon/export-text.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/export.h:
common/text.h:
