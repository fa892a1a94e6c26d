build-merge/tests/unit/test-config.o: tests/unit/test-config.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h daemon/config-internal.h daemon/config.h \
 daemon/selector.h common/error.h common/limits.h common/text.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/config-internal.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/text.h:
