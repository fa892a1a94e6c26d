build-merge/trace/trace-export.o: trace/trace-export.c \
 trace/trace-export.h common/region-event-kind.h common/macro.h \
 common/text.h trace/trace-jsonw.h common/hashtab.h
trace/trace-export.h:
common/region-event-kind.h:
common/macro.h:
common/text.h:
trace/trace-jsonw.h:
common/hashtab.h:
