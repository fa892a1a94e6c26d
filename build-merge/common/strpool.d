build-merge/common/strpool.o: common/strpool.c common/strpool.h \
 common/hashtab.h
common/strpool.h:
common/hashtab.h:
