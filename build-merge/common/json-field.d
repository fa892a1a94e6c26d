build-merge/common/json-field.o: common/json-field.c common/json-field.h
common/json-field.h:
