build-merge/scanner/classes.o: scanner/classes.c scanner/classes.h \
 common/macro.h
scanner/classes.h:
common/macro.h:
