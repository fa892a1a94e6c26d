build-merge/scanner/census-json.o: scanner/census-json.c \
 scanner/census-json.h common/error.h common/limits.h common/macro.h \
 scanner/census.h scanner/census-counters.h scanner/classes.h \
 scanner/gpu.h scanner/proc-parse.h scanner/region.h scanner/classify.h \
 common/fileio.h common/json-field.h common/strpool.h common/util.h \
 common/text.h
scanner/census-json.h:
common/error.h:
common/limits.h:
common/macro.h:
scanner/census.h:
scanner/census-counters.h:
scanner/classes.h:
scanner/gpu.h:
scanner/proc-parse.h:
scanner/region.h:
scanner/classify.h:
common/fileio.h:
common/json-field.h:
common/strpool.h:
common/util.h:
common/text.h:
