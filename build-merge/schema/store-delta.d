build-merge/schema/store-delta.o: schema/store-delta.c common/limits.h \
 schema/store-internal.h common/hashtab.h common/macro.h schema/store.h \
 scanner/census.h scanner/census-counters.h scanner/classes.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h common/error.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h
common/limits.h:
schema/store-internal.h:
common/hashtab.h:
common/macro.h:
schema/store.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/error.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
