build-merge/tests/unit/test-trace-ledger.o: \
 tests/unit/test-trace-ledger.c trace/trace-ledger.h
trace/trace-ledger.h:
