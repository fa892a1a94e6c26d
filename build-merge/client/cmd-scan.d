build-merge/client/cmd-scan.o: client/cmd-scan.c client/ask.h \
 common/paths.h scanner/census-json.h common/error.h common/limits.h \
 common/macro.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 client/census-print.h client/commands.h client/command-table.h \
 client/control-client.h common/fileio.h scanner/proclist.h \
 scanner/procfs.h client/render-census.h scanner/scan.h common/util.h
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
client/census-print.h:
client/commands.h:
client/command-table.h:
client/control-client.h:
common/fileio.h:
scanner/proclist.h:
scanner/procfs.h:
client/render-census.h:
scanner/scan.h:
common/util.h:
