build-merge/schema/store-read-report.o: schema/store-read-report.c \
 schema/store-read-internal.h common/json-field.h schema/store-internal.h \
 common/hashtab.h common/macro.h schema/store.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h common/error.h common/limits.h \
 scanner/region-events.h common/region-event-kind.h schema/sample-row.h \
 schema/store-read.h common/text.h
schema/store-read-internal.h:
common/json-field.h:
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
common/limits.h:
scanner/region-events.h:
common/region-event-kind.h:
schema/sample-row.h:
schema/store-read.h:
common/text.h:
