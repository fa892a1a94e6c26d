build-merge/daemon/manager.o: daemon/manager.c daemon/manager-internal.h \
 daemon/census-tier.h daemon/census-take.h scanner/gpu.h scanner/steady.h \
 scanner/region.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/proc-parse.h \
 common/error.h common/limits.h common/macro.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h daemon/config.h \
 daemon/selector.h daemon/export-text.h daemon/schedule.h \
 daemon/control.h common/paths.h daemon/core-interface.h daemon/writer.h \
 daemon/discover.h daemon/discover-known.h common/hashtab.h \
 daemon/proc-connector.h daemon/target.h daemon/fast-tier.h \
 daemon/sample.h daemon/gpu-watch.h daemon/watched.h daemon/export.h \
 daemon/manager.h daemon/store-cycle.h daemon/status-line.h \
 daemon/daemon-clock.h common/fileio.h common/log.h scanner/procfs.h \
 daemon/state-lock.h daemon/timer.h common/util.h
daemon/manager-internal.h:
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
daemon/control.h:
common/paths.h:
daemon/core-interface.h:
daemon/writer.h:
daemon/discover.h:
daemon/discover-known.h:
common/hashtab.h:
daemon/proc-connector.h:
daemon/target.h:
daemon/fast-tier.h:
daemon/sample.h:
daemon/gpu-watch.h:
daemon/watched.h:
daemon/export.h:
daemon/manager.h:
daemon/store-cycle.h:
daemon/status-line.h:
daemon/daemon-clock.h:
common/fileio.h:
common/log.h:
scanner/procfs.h:
daemon/state-lock.h:
daemon/timer.h:
common/util.h:
