build-merge/scanner/evidence.o: scanner/evidence.c scanner/evidence.h \
 scanner/memsource.h scanner/region.h scanner/evidence-internal.h \
 scanner/classify.h scanner/classes.h common/limits.h common/macro.h \
 scanner/runtimes.h common/strpool.h common/units.h common/util.h
scanner/evidence.h:
scanner/memsource.h:
scanner/region.h:
scanner/evidence-internal.h:
scanner/classify.h:
scanner/classes.h:
common/limits.h:
common/macro.h:
scanner/runtimes.h:
common/strpool.h:
common/units.h:
common/util.h:
