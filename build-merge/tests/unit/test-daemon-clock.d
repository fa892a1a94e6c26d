build-merge/tests/unit/test-daemon-clock.o: \
 tests/unit/test-daemon-clock.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h daemon/daemon-clock.h common/limits.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/daemon-clock.h:
common/limits.h:
