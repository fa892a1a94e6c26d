build-merge/daemon/control-queries.o: daemon/control-queries.c \
 scanner/census-json.h common/error.h common/limits.h common/macro.h \
 scanner/census.h scanner/census-counters.h scanner/classes.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 daemon/control-internal.h daemon/control-access.h \
 daemon/control-buffer.h daemon/control-processes.h \
 daemon/control-request.h daemon/control-answer.h common/request-table.h \
 common/request-table.def schema/store-read.h daemon/control-worker.h \
 daemon/control.h common/paths.h daemon/core-interface.h \
 daemon/census-tier.h daemon/census-take.h scanner/steady.h \
 schema/store.h scanner/region-events.h common/region-event-kind.h \
 schema/sample-row.h daemon/config.h daemon/selector.h \
 daemon/export-text.h daemon/schedule.h daemon/writer.h \
 daemon/status-line.h scanner/scan.h common/util.h
scanner/census-json.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
daemon/control-internal.h:
daemon/control-access.h:
daemon/control-buffer.h:
daemon/control-processes.h:
daemon/control-request.h:
daemon/control-answer.h:
common/request-table.h:
common/request-table.def:
schema/store-read.h:
daemon/control-worker.h:
daemon/control.h:
common/paths.h:
daemon/core-interface.h:
daemon/census-tier.h:
daemon/census-take.h:
scanner/steady.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/config.h:
daemon/selector.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/writer.h:
daemon/status-line.h:
scanner/scan.h:
common/util.h:
