build-merge/scanner/gpu-cuda.o: scanner/gpu-cuda.c scanner/gpu-cuda.h \
 scanner/gpu.h common/limits.h
scanner/gpu-cuda.h:
scanner/gpu.h:
common/limits.h:
