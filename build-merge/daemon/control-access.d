build-merge/daemon/control-access.o: daemon/control-access.c \
 daemon/control-access.h common/macro.h
daemon/control-access.h:
common/macro.h:
