build-merge/daemon/config-parse.o: daemon/config-parse.c \
 daemon/config-internal.h daemon/config.h daemon/selector.h \
 common/error.h common/limits.h common/macro.h common/units.h \
 common/util.h
daemon/config-internal.h:
daemon/config.h:
daemon/selector.h:
common/error.h:
common/limits.h:
common/macro.h:
common/units.h:
common/util.h:
