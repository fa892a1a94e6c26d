build-merge/tests/unit/test-trace-parse.o: tests/unit/test-trace-parse.c \
 common/limits.h trace/trace-fast.h trace/trace-event.h common/error.h \
 common/macro.h trace/trace-general.h trace/trace-parse.h
common/limits.h:
trace/trace-fast.h:
trace/trace-event.h:
common/error.h:
common/macro.h:
trace/trace-general.h:
trace/trace-parse.h:
