build-merge/client/render-status.o: client/render-status.c \
 client/render-answer.h common/error.h common/limits.h common/macro.h \
 trace/trace-export.h common/region-event-kind.h client/table.h \
 common/text.h common/timeparse.h common/util.h
client/render-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-export.h:
common/region-event-kind.h:
client/table.h:
common/text.h:
common/timeparse.h:
common/util.h:
