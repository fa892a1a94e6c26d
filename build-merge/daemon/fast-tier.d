build-merge/daemon/fast-tier.o: daemon/fast-tier.c daemon/fast-tier.h \
 scanner/proc-parse.h daemon/sample.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/region.h common/error.h common/limits.h common/macro.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 scanner/steady.h daemon/change-watch.h common/log.h scanner/procfs.h \
 daemon/target.h daemon/census-tier.h daemon/census-take.h \
 daemon/config.h daemon/selector.h daemon/export-text.h daemon/schedule.h \
 daemon/gpu-watch.h daemon/core-interface.h daemon/writer.h \
 daemon/watched.h
daemon/fast-tier.h:
scanner/proc-parse.h:
daemon/sample.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/region.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
scanner/steady.h:
daemon/change-watch.h:
common/log.h:
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
