build-merge/daemon/ramwatchd.o: daemon/ramwatchd.c daemon/config.h \
 daemon/selector.h common/error.h common/limits.h common/macro.h \
 daemon/control.h common/paths.h daemon/core-interface.h \
 daemon/census-tier.h daemon/census-take.h scanner/gpu.h scanner/steady.h \
 scanner/region.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/proc-parse.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 daemon/export-text.h daemon/schedule.h daemon/writer.h \
 daemon/malloc-tuning.h common/log.h daemon/manager.h
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
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
daemon/export-text.h:
daemon/schedule.h:
daemon/writer.h:
daemon/malloc-tuning.h:
common/log.h:
daemon/manager.h:
