build-merge/tests/unit/test-top.o: tests/unit/test-top.c \
 tests/unit/testlib.h scanner/classify.h scanner/classes.h \
 scanner/region.h common/macro.h scanner/smaps.h common/strpool.h \
 common/units.h client/top-layout.h client/top-model.h common/text.h \
 common/util.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
client/top-layout.h:
client/top-model.h:
common/text.h:
common/util.h:
