build-merge/tests/unit/test-config-files.o: \
 tests/unit/test-config-files.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/config.h daemon/selector.h \
 common/error.h common/limits.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
