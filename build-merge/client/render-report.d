build-merge/client/render-report.o: client/render-report.c \
 client/render-answer.h common/error.h common/limits.h common/macro.h \
 trace/trace-export.h common/region-event-kind.h scanner/census-json.h \
 scanner/census.h scanner/census-counters.h scanner/classes.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 client/render-census.h client/table.h common/timeparse.h common/util.h
client/render-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-export.h:
common/region-event-kind.h:
scanner/census-json.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
client/render-census.h:
client/table.h:
common/timeparse.h:
common/util.h:
