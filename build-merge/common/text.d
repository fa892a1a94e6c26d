build-merge/common/text.o: common/text.c common/text.h
common/text.h:
