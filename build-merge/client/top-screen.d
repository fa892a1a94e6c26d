build-merge/client/top-screen.o: client/top-screen.c client/top-screen.h \
 client/top-layout.h common/macro.h client/top-model.h scanner/classes.h
client/top-screen.h:
client/top-layout.h:
common/macro.h:
client/top-model.h:
scanner/classes.h:
