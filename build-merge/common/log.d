build-merge/common/log.o: common/log.c common/log.h common/macro.h \
 common/text.h common/util.h
common/log.h:
common/macro.h:
common/text.h:
common/util.h:
