build-merge/schema/store-read-census.o: schema/store-read-census.c \
 scanner/census-json.h common/error.h common/limits.h common/macro.h \
 scanner/census.h scanner/census-counters.h scanner/classes.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 schema/store-read-internal.h common/json-field.h schema/store-internal.h \
 common/hashtab.h schema/store.h scanner/region-events.h \
 common/region-event-kind.h schema/sample-row.h schema/store-read.h \
 common/text.h
scanner/census-json.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
schema/store-read-internal.h:
common/json-field.h:
schema/store-internal.h:
common/hashtab.h:
schema/store.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
schema/store-read.h:
common/text.h:
