build-merge/daemon/census-take.o: daemon/census-take.c \
 daemon/census-take.h scanner/gpu.h scanner/steady.h scanner/region.h \
 schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/proc-parse.h common/error.h common/limits.h \
 common/macro.h scanner/region-events.h common/region-event-kind.h \
 schema/sample-row.h daemon/daemon-clock.h scanner/scan.h common/util.h
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
daemon/daemon-clock.h:
scanner/scan.h:
common/util.h:
