build-merge/trace/trace-binary.o: trace/trace-binary.c \
 trace/trace-binary.h
trace/trace-binary.h:
