build-merge/client/render-census.o: client/render-census.c \
 client/render-census.h scanner/census.h scanner/census-counters.h \
 scanner/classes.h scanner/gpu.h scanner/proc-parse.h scanner/region.h \
 client/table.h common/macro.h common/util.h
client/render-census.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
client/table.h:
common/macro.h:
common/util.h:
