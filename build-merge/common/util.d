build-merge/common/util.o: common/util.c common/util.h
common/util.h:
