build-merge/trace/trace-general.o: trace/trace-general.c \
 trace/trace-general.h common/limits.h trace/trace-event.h common/error.h \
 common/macro.h
trace/trace-general.h:
common/limits.h:
trace/trace-event.h:
common/error.h:
common/macro.h:
