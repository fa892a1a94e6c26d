build-merge/common/units.o: common/units.c common/units.h common/limits.h \
 common/macro.h common/util.h
common/units.h:
common/limits.h:
common/macro.h:
common/util.h:
