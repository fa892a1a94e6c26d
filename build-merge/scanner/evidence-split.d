build-merge/scanner/evidence-split.o: scanner/evidence-split.c \
 scanner/evidence-internal.h scanner/evidence.h scanner/memsource.h \
 scanner/region.h scanner/classify.h scanner/classes.h common/limits.h \
 common/macro.h common/strpool.h common/util.h
scanner/evidence-internal.h:
scanner/evidence.h:
scanner/memsource.h:
scanner/region.h:
scanner/classify.h:
scanner/classes.h:
common/limits.h:
common/macro.h:
common/strpool.h:
common/util.h:
