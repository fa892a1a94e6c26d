build-merge/scanner/procfs.o: scanner/procfs.c scanner/procfs.h \
 scanner/proc-parse.h common/limits.h common/fileio.h common/macro.h \
 common/util.h
scanner/procfs.h:
scanner/proc-parse.h:
common/limits.h:
common/fileio.h:
common/macro.h:
common/util.h:
