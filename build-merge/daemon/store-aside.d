build-merge/daemon/store-aside.o: daemon/store-aside.c \
 daemon/store-aside.h common/limits.h common/log.h common/macro.h
daemon/store-aside.h:
common/limits.h:
common/log.h:
common/macro.h:
