build-merge/trace/trace-jsonw.o: trace/trace-jsonw.c trace/trace-jsonw.h \
 common/text.h
trace/trace-jsonw.h:
common/text.h:
