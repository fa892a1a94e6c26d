build-merge/daemon/writer.o: daemon/writer.c daemon/writer.h \
 schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 common/error.h common/limits.h common/macro.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h common/log.h \
 common/strpool.h common/util.h
daemon/writer.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
common/log.h:
common/strpool.h:
common/util.h:
