build-merge/client/top-model.o: client/top-model.c client/top-model.h \
 scanner/classes.h common/macro.h client/render-answer.h common/error.h \
 common/limits.h trace/trace-export.h common/region-event-kind.h \
 common/text.h common/util.h
client/top-model.h:
scanner/classes.h:
common/macro.h:
client/render-answer.h:
common/error.h:
common/limits.h:
trace/trace-export.h:
common/region-event-kind.h:
common/text.h:
common/util.h:
