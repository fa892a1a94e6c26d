build-merge/daemon/control-conn.o: daemon/control-conn.c \
 daemon/control-internal.h common/macro.h daemon/control-access.h \
 daemon/control-buffer.h daemon/control-processes.h \
 daemon/control-request.h daemon/control-answer.h common/error.h \
 common/limits.h common/request-table.h common/request-table.def \
 schema/store-read.h daemon/control-worker.h daemon/control.h \
 common/paths.h daemon/core-interface.h daemon/census-tier.h \
 daemon/census-take.h scanner/gpu.h scanner/steady.h scanner/region.h \
 schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/proc-parse.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/config.h \
 daemon/selector.h daemon/export-text.h daemon/schedule.h daemon/writer.h \
 daemon/status-line.h daemon/daemon-clock.h common/log.h common/util.h
daemon/control-internal.h:
common/macro.h:
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
scanner/region.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
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
daemon/daemon-clock.h:
common/log.h:
common/util.h:
