build-merge/schema/store-coalesce.o: schema/store-coalesce.c \
 schema/store-coalesce.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h common/error.h common/limits.h \
 common/macro.h scanner/region-events.h common/region-event-kind.h \
 schema/sample-row.h schema/store-internal.h common/hashtab.h
schema/store-coalesce.h:
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
schema/store-internal.h:
common/hashtab.h:
