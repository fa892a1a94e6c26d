build-merge/trace/trace-ledger.o: trace/trace-ledger.c \
 trace/trace-ledger.h
trace/trace-ledger.h:
