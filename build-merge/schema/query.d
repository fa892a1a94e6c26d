build-merge/schema/query.o: schema/query.c common/limits.h common/macro.h \
 schema/query.h common/error.h common/util.h
common/limits.h:
common/macro.h:
schema/query.h:
common/error.h:
common/util.h:
