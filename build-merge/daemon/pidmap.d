build-merge/daemon/pidmap.o: daemon/pidmap.c daemon/pidmap.h \
 common/hashtab.h
daemon/pidmap.h:
common/hashtab.h:
