build-merge/scanner/evidence-checks.o: scanner/evidence-checks.c \
 scanner/evidence.h scanner/memsource.h scanner/region.h \
 scanner/evidence-internal.h common/units.h
scanner/evidence.h:
scanner/memsource.h:
scanner/region.h:
scanner/evidence-internal.h:
common/units.h:
