build-merge/daemon/control-worker.o: daemon/control-worker.c \
 daemon/control-worker.h common/error.h common/limits.h common/macro.h \
 schema/store-read.h common/util.h
daemon/control-worker.h:
common/error.h:
common/limits.h:
common/macro.h:
schema/store-read.h:
common/util.h:
