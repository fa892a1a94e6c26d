build-merge/tests/unit/test-render-answers.o: \
 tests/unit/test-render-answers.c tests/unit/control-client-testlib.h \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census-json.h common/error.h common/limits.h \
 scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h client/control-client.h common/paths.h \
 client/render-answer.h trace/trace-export.h common/region-event-kind.h \
 scanner/scan.h common/text.h
tests/unit/control-client-testlib.h:
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/census-json.h:
common/error.h:
common/limits.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
client/control-client.h:
common/paths.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
scanner/scan.h:
common/text.h:
