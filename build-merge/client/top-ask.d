build-merge/client/top-ask.o: client/top-ask.c client/top-ask.h \
 common/limits.h client/top-layout.h common/macro.h client/top-model.h \
 scanner/classes.h client/control-client.h common/error.h common/paths.h \
 client/render-answer.h trace/trace-export.h common/region-event-kind.h \
 common/text.h common/timeparse.h common/util.h
client/top-ask.h:
common/limits.h:
client/top-layout.h:
common/macro.h:
client/top-model.h:
scanner/classes.h:
client/control-client.h:
common/error.h:
common/paths.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
common/text.h:
common/timeparse.h:
common/util.h:
