build-merge/scanner/proclist.o: scanner/proclist.c scanner/proclist.h \
 common/macro.h scanner/procfs.h scanner/proc-parse.h
scanner/proclist.h:
common/macro.h:
scanner/procfs.h:
scanner/proc-parse.h:
