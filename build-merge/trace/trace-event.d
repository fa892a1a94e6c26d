build-merge/trace/trace-event.o: trace/trace-event.c trace/trace-event.h \
 common/error.h common/limits.h common/macro.h
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
