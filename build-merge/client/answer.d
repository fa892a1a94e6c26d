build-merge/client/answer.o: client/answer.c client/render-answer.h \
 common/error.h common/limits.h common/macro.h trace/trace-export.h \
 common/region-event-kind.h common/json-field.h common/timeparse.h \
 common/util.h
client/render-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-export.h:
common/region-event-kind.h:
common/json-field.h:
common/timeparse.h:
common/util.h:
