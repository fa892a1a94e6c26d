build-merge/client/top-layout.o: client/top-layout.c client/top-layout.h \
 common/macro.h client/top-model.h scanner/classes.h \
 client/render-answer.h common/error.h common/limits.h \
 trace/trace-export.h common/region-event-kind.h common/text.h \
 common/timeparse.h common/units.h common/util.h
client/top-layout.h:
common/macro.h:
client/top-model.h:
scanner/classes.h:
client/render-answer.h:
common/error.h:
common/limits.h:
trace/trace-export.h:
common/region-event-kind.h:
common/text.h:
common/timeparse.h:
common/units.h:
common/util.h:
