build-merge/daemon/control-answer.o: daemon/control-answer.c \
 daemon/control-answer.h common/error.h common/limits.h common/macro.h \
 common/text.h
daemon/control-answer.h:
common/error.h:
common/limits.h:
common/macro.h:
common/text.h:
