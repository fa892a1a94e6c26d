build-merge/tests/unit/test-render.o: tests/unit/test-render.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/census.h scanner/census-counters.h scanner/gpu.h \
 scanner/proc-parse.h client/render-census.h \
 client/render-region-changes.h common/error.h common/limits.h \
 common/region-event-kind.h scanner/scan.h client/style.h client/table.h \
 common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/census.h:
scanner/census-counters.h:
scanner/gpu.h:
scanner/proc-parse.h:
client/render-census.h:
client/render-region-changes.h:
common/error.h:
common/limits.h:
common/region-event-kind.h:
scanner/scan.h:
client/style.h:
client/table.h:
common/util.h:
