build-merge/daemon/target.o: daemon/target.c daemon/target.h \
 daemon/census-tier.h daemon/census-take.h scanner/gpu.h scanner/steady.h \
 scanner/region.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/proc-parse.h \
 common/error.h common/limits.h common/macro.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/config.h \
 daemon/selector.h daemon/export-text.h daemon/schedule.h \
 daemon/fast-tier.h daemon/sample.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h \
 scanner/procfs.h common/util.h
daemon/target.h:
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
common/error.h:
common/limits.h:
common/macro.h:
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
scanner/procfs.h:
common/util.h:
