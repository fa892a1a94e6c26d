build-merge/client/render-html.o: client/render-html.c \
 client/render-answer.h common/error.h common/limits.h common/macro.h \
 trace/trace-export.h common/region-event-kind.h client/render-html.h \
 scanner/classes.h common/text.h common/timeparse.h common/util.h
client/render-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-export.h:
common/region-event-kind.h:
client/render-html.h:
scanner/classes.h:
common/text.h:
common/timeparse.h:
common/util.h:
