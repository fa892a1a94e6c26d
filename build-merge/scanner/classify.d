build-merge/scanner/classify.o: scanner/classify.c scanner/classify.h \
 scanner/classes.h scanner/region.h scanner/classify-internal.h \
 scanner/runtimes.h common/units.h common/util.h common/macro.h
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
scanner/classify-internal.h:
scanner/runtimes.h:
common/units.h:
common/util.h:
common/macro.h:
