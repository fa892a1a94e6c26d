build-merge/client/chart.o: client/chart.c client/chart.h common/units.h \
 common/macro.h
client/chart.h:
common/units.h:
common/macro.h:
