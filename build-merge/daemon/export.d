build-merge/daemon/export.o: daemon/export.c daemon/export.h \
 daemon/config.h daemon/selector.h common/error.h common/limits.h \
 common/macro.h daemon/export-text.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h schema/store.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 common/fileio.h common/log.h daemon/target.h daemon/census-tier.h \
 daemon/census-take.h scanner/steady.h daemon/schedule.h \
 daemon/fast-tier.h daemon/sample.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h common/util.h
daemon/export.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
daemon/export-text.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
common/fileio.h:
common/log.h:
daemon/target.h:
daemon/census-tier.h:
daemon/census-take.h:
scanner/steady.h:
daemon/schedule.h:
daemon/fast-tier.h:
daemon/sample.h:
daemon/gpu-watch.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
common/util.h:
