build-merge/daemon/discover-known.o: daemon/discover-known.c \
 daemon/discover-known.h common/hashtab.h scanner/proc-parse.h
daemon/discover-known.h:
common/hashtab.h:
scanner/proc-parse.h:
