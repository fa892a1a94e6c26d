build-merge/daemon/schedule.o: daemon/schedule.c daemon/schedule.h \
 daemon/config.h daemon/selector.h common/error.h common/limits.h \
 common/macro.h schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h
daemon/schedule.h:
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
