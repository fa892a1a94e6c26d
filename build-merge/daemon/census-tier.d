build-merge/daemon/census-tier.o: daemon/census-tier.c \
 daemon/census-tier.h daemon/census-take.h scanner/gpu.h scanner/steady.h \
 scanner/region.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/proc-parse.h \
 common/error.h common/limits.h common/macro.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/config.h \
 daemon/selector.h daemon/export-text.h daemon/schedule.h \
 daemon/daemon-clock.h daemon/gpu-watch.h common/log.h daemon/target.h \
 daemon/fast-tier.h daemon/sample.h daemon/core-interface.h \
 daemon/writer.h daemon/watched.h common/util.h
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
daemon/daemon-clock.h:
daemon/gpu-watch.h:
common/log.h:
daemon/target.h:
daemon/fast-tier.h:
daemon/sample.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/watched.h:
common/util.h:
