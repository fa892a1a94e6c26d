build-merge/schema/sample-row.o: schema/sample-row.c schema/sample-row.h
schema/sample-row.h:
