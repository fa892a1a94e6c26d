build-merge/common/request-table.o: common/request-table.c \
 common/request-table.h common/limits.h common/request-table.def \
 common/macro.h common/util.h
common/request-table.h:
common/limits.h:
common/request-table.def:
common/macro.h:
common/util.h:
