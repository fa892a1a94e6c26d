build-merge/tests/unit/test-steady.o: tests/unit/test-steady.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h scanner/procfs.h scanner/proc-parse.h scanner/steady.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
scanner/procfs.h:
scanner/proc-parse.h:
scanner/steady.h:
