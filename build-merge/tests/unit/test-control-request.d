build-merge/tests/unit/test-control-request.o: \
 tests/unit/test-control-request.c tests/unit/testlib.h \
 scanner/classify.h scanner/classes.h scanner/region.h common/macro.h \
 scanner/smaps.h common/strpool.h common/units.h daemon/control-request.h \
 daemon/control-answer.h common/error.h common/limits.h \
 common/request-table.h common/request-table.def schema/store-read.h
tests/unit/testlib.h:
scanner/classify.h:
scanner/classes.h:
scanner/region.h:
common/macro.h:
scanner/smaps.h:
common/strpool.h:
common/units.h:
daemon/control-request.h:
daemon/control-answer.h:
common/error.h:
common/limits.h:
common/request-table.h:
common/request-table.def:
schema/store-read.h:
