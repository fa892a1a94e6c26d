build-merge/tests/unit/test-render-html.o: tests/unit/test-render-html.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h client/chart.h client/render-answer.h common/error.h \
 common/limits.h trace/trace-export.h common/region-event-kind.h \
 client/render-html.h common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
client/chart.h:
client/render-answer.h:
common/error.h:
common/limits.h:
trace/trace-export.h:
common/region-event-kind.h:
client/render-html.h:
common/util.h:
