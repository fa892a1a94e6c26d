build-merge/scanner/region.o: scanner/region.c scanner/region.h
scanner/region.h:
