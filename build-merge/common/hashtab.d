build-merge/common/hashtab.o: common/hashtab.c common/hashtab.h
common/hashtab.h:
