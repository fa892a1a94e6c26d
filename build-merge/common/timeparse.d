build-merge/common/timeparse.o: common/timeparse.c common/timeparse.h \
 common/limits.h common/units.h
common/timeparse.h:
common/limits.h:
common/units.h:
