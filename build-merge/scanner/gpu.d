build-merge/scanner/gpu.o: scanner/gpu.c scanner/gpu.h scanner/gpu-cuda.h \
 scanner/gpu-nvml.h common/limits.h common/macro.h common/util.h
scanner/gpu.h:
scanner/gpu-cuda.h:
scanner/gpu-nvml.h:
common/limits.h:
common/macro.h:
common/util.h:
