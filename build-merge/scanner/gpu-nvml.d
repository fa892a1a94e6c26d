build-merge/scanner/gpu-nvml.o: scanner/gpu-nvml.c scanner/gpu-nvml.h \
 scanner/gpu.h common/limits.h common/macro.h
scanner/gpu-nvml.h:
scanner/gpu.h:
common/limits.h:
common/macro.h:
