build-merge/daemon/store-cycle.o: daemon/store-cycle.c \
 daemon/store-cycle.h daemon/config.h daemon/selector.h common/error.h \
 common/limits.h common/macro.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/daemon-clock.h \
 daemon/fast-tier.h daemon/sample.h scanner/steady.h \
 daemon/malloc-tuning.h common/log.h daemon/store-aside.h daemon/sysmem.h \
 daemon/target.h daemon/census-tier.h daemon/census-take.h \
 daemon/export-text.h daemon/schedule.h daemon/gpu-watch.h \
 daemon/core-interface.h daemon/writer.h daemon/watched.h common/util.h
daemon/store-cycle.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
daemon/daemon-clock.h:
daemon/fast-tier.h:
daemon/sample.h:
scanner/steady.h:
daemon/malloc-tuning.h:
common/log.h:
daemon/store-aside.h:
daemon/sysmem.h:
daemon/target.h:
daemon/census-tier.h:
daemon/census-take.h:
daemon/export-text.h:
daemon/schedule.h:
daemon/gpu-watch.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
common/util.h:
