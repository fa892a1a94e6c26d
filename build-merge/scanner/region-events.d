build-merge/scanner/region-events.o: scanner/region-events.c \
 scanner/region-events.h common/region-event-kind.h scanner/census.h \
 scanner/census-counters.h scanner/classes.h scanner/gpu.h \
 scanner/proc-parse.h scanner/region.h common/strpool.h
scanner/region-events.h:
common/region-event-kind.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
common/strpool.h:
