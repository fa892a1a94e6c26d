build-merge/trace/trace-parse.o: trace/trace-parse.c trace/trace-parse.h \
 trace/trace-event.h common/error.h common/limits.h common/macro.h \
 trace/trace-fast.h trace/trace-general.h
trace/trace-parse.h:
trace/trace-event.h:
common/error.h:
common/limits.h:
common/macro.h:
trace/trace-fast.h:
trace/trace-general.h:
