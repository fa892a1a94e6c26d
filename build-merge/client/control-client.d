build-merge/client/control-client.o: client/control-client.c \
 client/control-client.h common/error.h common/limits.h common/macro.h \
 common/paths.h client/render-answer.h trace/trace-export.h \
 common/region-event-kind.h schema/store-read-page.h common/util.h
client/control-client.h:
common/error.h:
common/limits.h:
common/macro.h:
common/paths.h:
client/render-answer.h:
trace/trace-export.h:
common/region-event-kind.h:
schema/store-read-page.h:
common/util.h:
