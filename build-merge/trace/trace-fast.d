build-merge/trace/trace-fast.o: trace/trace-fast.c trace/trace-fast.h \
 trace/trace-event.h common/error.h common/limits.h common/macro.h
trace/trace-fast.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
