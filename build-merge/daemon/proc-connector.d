build-merge/daemon/proc-connector.o: daemon/proc-connector.c \
 daemon/proc-connector.h common/limits.h common/macro.h
daemon/proc-connector.h:
common/limits.h:
common/macro.h:
