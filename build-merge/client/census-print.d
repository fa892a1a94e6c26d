build-merge/client/census-print.o: client/census-print.c \
 client/census-print.h scanner/census-json.h common/error.h \
 common/limits.h common/macro.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h client/commands.h \
 client/command-table.h common/fileio.h client/render-census.h \
 common/util.h
client/census-print.h:
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
common/fileio.h:
client/render-census.h:
common/util.h:
