build-merge/daemon/selector.o: daemon/selector.c daemon/selector.h \
 common/error.h common/limits.h common/macro.h common/util.h
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
common/util.h:
