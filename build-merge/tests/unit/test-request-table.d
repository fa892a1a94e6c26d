build-merge/tests/unit/test-request-table.o: \
 tests/unit/test-request-table.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/control-internal.h \
 daemon/control-access.h daemon/control-buffer.h \
 daemon/control-processes.h daemon/control-request.h \
 daemon/control-answer.h common/error.h common/limits.h \
 common/request-table.h common/request-table.def schema/store-read.h \
 daemon/control-worker.h daemon/control.h common/paths.h \
 daemon/core-interface.h daemon/census-tier.h daemon/census-take.h \
 scanner/gpu.h scanner/steady.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/proc-parse.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/config.h \
 daemon/selector.h daemon/export-text.h daemon/schedule.h daemon/writer.h \
 daemon/status-line.h common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/control-internal.h:
daemon/control-access.h:
daemon/control-buffer.h:
daemon/control-processes.h:
daemon/control-request.h:
daemon/control-answer.h:
common/error.h:
common/limits.h:
common/request-table.h:
common/request-table.def:
schema/store-read.h:
daemon/control-worker.h:
daemon/control.h:
common/paths.h:
daemon/core-interface.h:
daemon/census-tier.h:
daemon/census-take.h:
scanner/gpu.h:
scanner/steady.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/proc-parse.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/config.h:
daemon/selector.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/writer.h:
daemon/status-line.h:
common/util.h:
