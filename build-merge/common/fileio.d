build-merge/common/fileio.o: common/fileio.c common/fileio.h \
 common/limits.h common/macro.h common/util.h
common/fileio.h:
common/limits.h:
common/macro.h:
common/util.h:
