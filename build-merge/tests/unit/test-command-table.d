build-merge/tests/unit/test-command-table.o: \
 tests/unit/test-command-table.c tests/unit/testlib.h scanner/classify.h \
 scanner/classes.h scanner/region.h common/macro.h scanner/smaps.h \
 common/strpool.h common/units.h client/command-table.h common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
client/command-table.h:
common/util.h:
