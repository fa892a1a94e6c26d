build-merge/scanner/win-census.o: scanner/win-census.c \
 scanner/win-census.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 common/error.h common/limits.h common/macro.h \
 scanner/classify-internal.h scanner/classify.h scanner/runtimes.h \
 common/units.h common/util.h common/strpool.h
scanner/win-census.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/classify-internal.h:
scanner/classify.h:
scanner/runtimes.h:
common/units.h:
common/util.h:
common/strpool.h:
