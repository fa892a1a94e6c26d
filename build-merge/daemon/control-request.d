build-merge/daemon/control-request.o: daemon/control-request.c \
 daemon/control-request.h daemon/control-answer.h common/error.h \
 common/limits.h common/macro.h common/request-table.h \
 common/request-table.def schema/store-read.h scanner/classes.h \
 common/json-field.h common/util.h
daemon/control-request.h:
daemon/control-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
common/request-table.h:
common/request-table.def:
schema/store-read.h:
scanner/classes.h:
common/json-field.h:
common/util.h:
