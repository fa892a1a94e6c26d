build-merge/scanner/smaps-fast.o: scanner/smaps-fast.c \
 scanner/smaps-internal.h scanner/smaps.h scanner/region.h
scanner/smaps-internal.h:
scanner/smaps.h:
scanner/region.h:
