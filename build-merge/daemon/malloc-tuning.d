build-merge/daemon/malloc-tuning.o: daemon/malloc-tuning.c \
 daemon/malloc-tuning.h common/limits.h
daemon/malloc-tuning.h:
common/limits.h:
