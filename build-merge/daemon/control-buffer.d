build-merge/daemon/control-buffer.o: daemon/control-buffer.c \
 daemon/control-buffer.h
daemon/control-buffer.h:
