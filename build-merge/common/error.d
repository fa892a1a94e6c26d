build-merge/common/error.o: common/error.c common/error.h common/limits.h \
 common/macro.h
common/error.h:
common/limits.h:
common/macro.h:
