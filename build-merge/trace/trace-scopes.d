build-merge/trace/trace-scopes.o: trace/trace-scopes.c \
 trace/trace-scopes.h common/hashtab.h trace/trace-counters.h
trace/trace-scopes.h:
common/hashtab.h:
trace/trace-counters.h:
