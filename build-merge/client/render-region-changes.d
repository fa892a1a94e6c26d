build-merge/client/render-region-changes.o: \
 client/render-region-changes.c client/render-region-changes.h \
 common/error.h common/limits.h common/macro.h common/region-event-kind.h \
 client/render-census.h client/render-answer.h trace/trace-export.h \
 client/table.h common/util.h
client/render-region-changes.h:
common/error.h:
common/limits.h:
common/macro.h:
common/region-event-kind.h:
client/render-census.h:
client/render-answer.h:
trace/trace-export.h:
client/table.h:
common/util.h:
