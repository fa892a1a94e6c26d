build-merge/daemon/control-processes.o: daemon/control-processes.c \
 daemon/control-processes.h daemon/control-request.h \
 daemon/control-answer.h common/error.h common/limits.h common/macro.h \
 common/request-table.h common/request-table.def schema/store-read.h \
 common/json-field.h common/util.h
daemon/control-processes.h:
daemon/control-request.h:
daemon/control-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
common/request-table.h:
common/request-table.def:
schema/store-read.h:
common/json-field.h:
common/util.h:
