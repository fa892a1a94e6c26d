build-merge/daemon/change-watch.o: daemon/change-watch.c \
 daemon/change-watch.h build-merge/gen/change-watch.skel.h \
 common/fileio.h common/limits.h common/log.h common/macro.h
daemon/change-watch.h:
build-merge/gen/change-watch.skel.h:
common/fileio.h:
common/limits.h:
common/log.h:
common/macro.h:
