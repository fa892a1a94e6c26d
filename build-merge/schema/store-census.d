build-merge/schema/store-census.o: schema/store-census.c \
 scanner/classes.h schema/store-internal.h common/hashtab.h \
 common/macro.h schema/store.h scanner/census.h scanner/census-counters.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h common/error.h \
 common/limits.h scanner/region-events.h common/region-event-kind.h \
 schema/sample-row.h
scanner/classes.h:
schema/store-internal.h:
common/hashtab.h:
common/macro.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/error.h:
common/limits.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
