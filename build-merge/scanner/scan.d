build-merge/scanner/scan.o: scanner/scan.c scanner/scan.h common/error.h \
 common/limits.h common/macro.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h scanner/classify.h \
 scanner/evidence.h scanner/memsource.h common/fileio.h \
 scanner/memimage.h scanner/procfs.h scanner/smaps.h common/strpool.h \
 common/util.h
scanner/scan.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
scanner/classify.h:
scanner/evidence.h:
scanner/memsource.h:
common/fileio.h:
scanner/memimage.h:
scanner/procfs.h:
scanner/smaps.h:
common/strpool.h:
common/util.h:
