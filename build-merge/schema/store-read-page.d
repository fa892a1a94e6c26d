build-merge/schema/store-read-page.o: schema/store-read-page.c \
 schema/store-read-page.h common/json-field.h common/macro.h \
 common/util.h
schema/store-read-page.h:
common/json-field.h:
common/macro.h:
common/util.h:
