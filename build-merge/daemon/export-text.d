build-merge/daemon/export-text.o: daemon/export-text.c \
 daemon/export-text.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 daemon/config.h daemon/selector.h common/error.h common/limits.h \
 common/macro.h schema/store.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h common/text.h \
 common/util.h
daemon/export-text.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
common/text.h:
common/util.h:
