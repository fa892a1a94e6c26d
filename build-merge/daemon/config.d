build-merge/daemon/config.o: daemon/config.c daemon/config.h \
 daemon/selector.h common/error.h common/limits.h common/macro.h \
 daemon/config-internal.h common/fileio.h common/util.h
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
daemon/config-internal.h:
common/fileio.h:
common/util.h:
