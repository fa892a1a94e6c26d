build-merge/scanner/proc-parse.o: scanner/proc-parse.c \
 scanner/proc-parse.h common/macro.h common/util.h
scanner/proc-parse.h:
common/macro.h:
common/util.h:
