build-merge/scanner/classify-shapes.o: scanner/classify-shapes.c \
 scanner/classify-internal.h scanner/classify.h scanner/classes.h \
 scanner/region.h scanner/runtimes.h common/units.h common/util.h \
 common/macro.h
scanner/classify-internal.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
scanner/runtimes.h:
common/units.h:
common/util.h:
common/macro.h:
