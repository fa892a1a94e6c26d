build-merge/common/region-event-kind.o: common/region-event-kind.c \
 common/region-event-kind.h
common/region-event-kind.h:
