build-merge/client/render-html-charts.o: client/render-html-charts.c \
 client/render-html.h scanner/classes.h client/chart.h common/units.h \
 common/macro.h client/render-answer.h common/error.h common/limits.h \
 trace/trace-export.h common/region-event-kind.h common/text.h \
 common/timeparse.h common/util.h
client/render-html.h:
scanner/classes.h:
client/chart.h:
common/units.h:
common/macro.h:
client/render-answer.h:
common/error.h:
common/limits.h:
trace/trace-export.h:
common/region-event-kind.h:
common/text.h:
common/timeparse.h:
common/util.h:
