build-merge/daemon/config-values.o: daemon/config-values.c \
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
