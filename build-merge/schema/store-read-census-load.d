build-merge/schema/store-read-census-load.o: \
 schema/store-read-census-load.c scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h scanner/classify.h \
 schema/store-read-internal.h common/json-field.h schema/store-internal.h \
 common/hashtab.h common/macro.h schema/store.h common/error.h \
 common/limits.h scanner/region-events.h common/region-event-kind.h \
 schema/sample-row.h schema/store-read.h common/text.h common/strpool.h
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
scanner/classify.h:
schema/store-read-internal.h:
common/json-field.h:
schema/store-internal.h:
common/hashtab.h:
common/macro.h:
schema/store.h:
common/error.h:
common/limits.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
schema/store-read.h:
common/text.h:
common/strpool.h:
