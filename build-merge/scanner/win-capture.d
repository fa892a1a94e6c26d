build-merge/scanner/win-capture.o: scanner/win-capture.c \
 scanner/win-capture.h common/error.h common/limits.h common/macro.h \
 scanner/win-census.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 common/fileio.h common/json-field.h common/strpool.h common/util.h
scanner/win-capture.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/win-census.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/fileio.h:
common/json-field.h:
common/strpool.h:
common/util.h:
