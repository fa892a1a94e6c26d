build-merge/client/style.o: client/style.c client/style.h
client/style.h:
