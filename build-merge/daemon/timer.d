build-merge/daemon/timer.o: daemon/timer.c daemon/timer.h common/log.h \
 common/macro.h
daemon/timer.h:
common/log.h:
common/macro.h:
