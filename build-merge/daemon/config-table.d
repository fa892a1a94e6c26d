build-merge/daemon/config-table.o: daemon/config-table.c \
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
