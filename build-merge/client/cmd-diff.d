build-merge/client/cmd-diff.o: client/cmd-diff.c client/ask.h \
 common/paths.h scanner/census-json.h common/error.h common/limits.h \
 common/macro.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 client/commands.h client/command-table.h client/control-client.h \
 client/render-answer.h trace/trace-export.h common/region-event-kind.h \
 client/render-census.h client/render-region-changes.h common/timeparse.h \
 common/util.h
client/ask.h:
common/paths.h:
scanner/census-json.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
client/render-census.h:
client/render-region-changes.h:
common/timeparse.h:
common/util.h:
