build-merge/daemon/state-lock.o: daemon/state-lock.c daemon/state-lock.h \
 common/log.h common/macro.h common/util.h
daemon/state-lock.h:
common/log.h:
common/macro.h:
common/util.h:
