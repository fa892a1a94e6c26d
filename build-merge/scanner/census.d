build-merge/scanner/census.o: scanner/census.c scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h scanner/classify.h common/macro.h \
 common/strpool.h common/util.h
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
scanner/classify.h:
common/macro.h:
common/strpool.h:
common/util.h:
