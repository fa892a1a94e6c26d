build-merge/daemon/daemon-clock.o: daemon/daemon-clock.c \
 daemon/daemon-clock.h common/limits.h common/log.h common/macro.h \
 common/util.h
daemon/daemon-clock.h:
common/limits.h:
common/log.h:
common/macro.h:
common/util.h:
