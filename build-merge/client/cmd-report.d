build-merge/client/cmd-report.o: client/cmd-report.c client/ask.h \
 common/paths.h client/chart.h common/units.h client/commands.h \
 client/command-table.h client/control-client.h common/error.h \
 common/limits.h common/macro.h client/render-answer.h \
 trace/trace-export.h common/region-event-kind.h client/report-trace.h \
 common/util.h
client/ask.h:
common/paths.h:
client/chart.h:
common/units.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
client/report-trace.h:
common/util.h:
