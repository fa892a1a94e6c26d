build-merge/client/render-history.o: client/render-history.c \
 client/render-answer.h common/error.h common/limits.h common/macro.h \
 trace/trace-export.h common/region-event-kind.h schema/sample-row.h \
 client/table.h common/text.h common/timeparse.h common/util.h
client/render-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-export.h:
common/region-event-kind.h:
schema/sample-row.h:
client/table.h:
common/text.h:
common/timeparse.h:
common/util.h:
