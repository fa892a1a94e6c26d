# ramwatch: one non-recursive Makefile, in layer order: settings, sources
# per component, include paths per layer, one library per component,
# programs, tests, run and bench, install and packaging, dependencies.
#
#   make            build build/ramwatch and build/ramwatchd
#   make run        install what is missing, build, run ramwatchd for a while, show what it recorded
#   make check      install what is missing, build (warnings are errors), run unit and
#                   integration tests, then all of them again under ASan+UBSan,
#                   then the fuzz targets for a bounded time, the layer check, the man-page lint
#                   and the documents' check (make check-docs)
#   make fuzz       every libFuzzer target for FUZZ_SECONDS each (default 20: about 3 min in all);
#                   make fuzz FUZZ_SECONDS=600 runs each longer.  Targets (tests/fuzz/): smaps,
#                   evidence, trace, control, config, census-json, units, proc, win-capture, heap
#   make bench      measure the scanner against cat and pmap, what evidence and the heap
#                   walks cost a census, the daemon, history reads and the trace analyzer
#                   (BENCHMARKS.md)
#   make install    PREFIX, DESTDIR, BINDIR, SBINDIR, MANDIR, SYSCONFDIR, UNITDIR honoured
#   make deb        build/deb/ramwatch_VERSION_ARCH.deb, lintian-clean (make rpm: the .rpm)
#   make check-install  check the units, build both packages, install and run the .deb, purge it
#   make soak       a real daemon under churn, clients, reloads, kill -9 and a full disk (SOAK_SECONDS)
#   make deps       install the Debian packages the build and tests need
#   make windows    build/windows/ramwatch.exe and ramwatchd.exe (mingw-w64); make check-windows
#                   tests them under Wine
#   make schema-doc doc/schema.sql again from a new database of the built ramwatchd (after a migration)
#
# The layers, lowest first; a folder is compiled with the include paths of
# its own layer and those below it only, so an include that reaches up (a
# scanner file naming a daemon header) does not compile:
#
#   common    ->  scanner, trace  ->  schema  ->  daemon, client
#
# (trace and scanner do not see each other; daemon and client do not see
# each other.)  make check-layers proves that the compiler refuses such an
# include.

# ================================================================== settings

VERSION := 0.1.0

.DEFAULT_GOAL := all

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
# shell completions: where bash-completion and zsh look under PREFIX
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
# the tracer and its Python module: a private directory, since only
# ramwatch trace record loads the library (by path, in LD_PRELOAD)
TRACERDIR := $(LIBDIR)/ramwatch
SYSCONFDIR ?= /etc
DESTDIR ?=

CC ?= cc
BUILD ?= build
PKG_CONFIG ?= pkg-config
PYTHON ?= /usr/bin/python3
FUZZ_SECONDS ?= 20

# Warnings are errors in every build, the packages' included.
CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 \
	-Wno-format-nonliteral -Wvla -Werror
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DRAMWATCH_VERSION='"$(VERSION)"' $(WARNINGS) -MMD -MP \
	$(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
LIBS = $(shell $(PKG_CONFIG) --libs jansson sqlite3 libsystemd libbpf 2>/dev/null || \
	echo -ljansson -lsqlite3 -lsystemd -lbpf) -lpthread -ldl

ifeq ($(SANITIZE),1)
BASE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)

# ================================================================== sources, per component

# common/: logging, files, strings, times; needs nothing else
COMMON_SRCS := common/util.c common/fileio.c common/strpool.c common/log.c common/text.c common/hashtab.c \
	common/region-event-kind.c common/timeparse.c common/units.c common/error.c common/json-field.c \
	common/request-table.c common/cgroup-unit.c

# scanner/: one process's census from /proc (smaps, status, evidence, GPU)
SCANNER_SRCS := scanner/region.c scanner/smaps.c scanner/smaps-fast.c scanner/proc-parse.c scanner/procfs.c \
	scanner/proclist.c scanner/classes.c scanner/runtimes.c scanner/classify.c scanner/classify-shapes.c scanner/census.c \
	scanner/census-json.c scanner/census-json-read.c scanner/region-events.c scanner/scan.c scanner/gpu.c scanner/gpu-nvml.c scanner/gpu-cuda.c \
	scanner/memsource.c scanner/memsource-live.c scanner/memimage.c scanner/evidence.c scanner/evidence-checks.c \
	scanner/evidence-split.c scanner/heap-walk.c scanner/heap-pass.c scanner/heap-glibc.c \
	scanner/heap-glibc-libc.c scanner/heap-glibc-chunks.c scanner/heap-pymalloc.c \
	scanner/heap-jemalloc.c scanner/heap-jemalloc-find.c scanner/heap-jemalloc-layout.c \
	scanner/mapping-file.c scanner/hsperf.c scanner/heap-jvm.c scanner/elf-read.c \
	scanner/heap-private.c scanner/heap-read.c scanner/heap-mimalloc.c scanner/heap-tcmalloc.c \
	scanner/heap-trend.c scanner/steady.c scanner/win-census.c scanner/win-capture.c

# trace/: the memtrace analyzer (ramwatch trace summary) and export
TRACE_SRCS := trace/trace-event.c trace/trace-fast.c trace/trace-general.c trace/trace-parse.c \
	trace/trace-scopes.c trace/trace-ledger.c trace/trace-live.c trace/trace-alloc.c \
	trace/trace-analyzer.c trace/trace-integrity.c trace/trace-rank.c trace/trace-jsonw.c \
	trace/trace-symbols.c trace/trace-report.c trace/trace-text.c trace/trace-jsonl.c \
	trace/trace-replay.c trace/trace-export.c trace/trace-binary.c trace/trace-run.c

# schema/: the SQLite store (writes, migrations, retention), its reads
# (history, report, census, events) and ramwatch sql's safe queries; the
# migrations travel inside the binary as C strings
SCHEMA_SRCS := schema/store.c schema/store-stmt.c schema/store-put.c schema/store-coalesce.c schema/sample-row.c schema/store-census.c schema/store-repeat.c schema/store-delta.c \
	schema/store-retention.c schema/store-spans.c schema/store-gpu.c schema/store-oom.c schema/store-cgroup.c schema/store-salvage.c \
	schema/store-read.c schema/store-read-json.c schema/store-read-select.c \
	schema/store-read-processes.c schema/store-read-samples.c schema/store-read-history.c \
	schema/store-read-window.c schema/store-read-census.c schema/store-read-compare.c \
	schema/store-read-report.c schema/store-read-events.c schema/store-read-page.c schema/store-read-rows.c \
	schema/store-read-census-load.c schema/store-read-heap.c schema/store-read-oom.c schema/store-read-cgroups.c \
	schema/query.c schema/store-errno.c
SCHEMA_MIGRATIONS := $(sort $(wildcard schema/migrations/*.sql))
SCHEMA_GENERATED := $(BUILD)/schema/migrations.c

# daemon/: ramwatchd (configuration, the tiers, the writer, the control
# socket, the metrics export, GPU snapshots); what differs by platform is
# behind a header of daemon/ each, and Linux's side of it is in daemon/linux/
DAEMON_LINUX_SRCS := daemon/linux/event-loop.c daemon/linux/service.c daemon/linux/state-lock.c daemon/linux/sysmem.c \
	daemon/linux/control-transport.c daemon/linux/control-peer.c daemon/linux/control-owner.c \
	daemon/linux/discover.c daemon/linux/target.c daemon/linux/fast-read.c daemon/linux/census-read.c
DAEMON_SRCS := $(DAEMON_LINUX_SRCS) daemon/config.c daemon/config-parse.c daemon/config-table.c daemon/config-values.c \
	daemon/selector.c \
	daemon/control.c daemon/control-conn.c daemon/control-ops.c daemon/control-queries.c \
	daemon/control-worker.c daemon/control-request.c daemon/control-answer.c daemon/control-access.c \
	daemon/control-processes.c daemon/control-buffer.c \
	daemon/sample.c daemon/schedule.c daemon/pidmap.c \
	daemon/writer.c daemon/target.c daemon/manager.c daemon/manager-interface.c daemon/discover-known.c daemon/proc-connector.c daemon/watched.c \
	daemon/fast-tier.c daemon/census-tier.c daemon/census-take.c daemon/store-cycle.c daemon/store-aside.c daemon/malloc-tuning.c daemon/timer.c daemon/daemon-clock.c daemon/status-line.c \
	daemon/export.c daemon/export-text.c daemon/gpu-watch.c daemon/change-watch.c daemon/oom-kmsg.c daemon/cgroup-mem.c \
	daemon/bpf-setup.c daemon/oom-watch.c daemon/process-watch.c daemon/oom-kills.c daemon/kmsg-source.c \
	daemon/oom-sources.c daemon/cgroup-watch.c daemon/near-limit.c daemon/manager-oom.c daemon/daemon-args.c
DAEMON_MAIN := daemon/ramwatchd.c
# the pure parts of the daemon's Windows primitives (daemon/windows/: the
# process snapshot's records, SIDs, the machine's memory row), built here
# too so that their unit tests run on Linux
DAEMON_SRCS += daemon/windows/win-procs.c daemon/windows/win-sid.c daemon/windows/win-sysmem.c

# client/: ramwatch (scan, summary, diff, the daemon's commands, sql, trace)
CLIENT_SRCS := client/cmd-scan.c client/census-print.c client/render-census.c client/table.c client/cmd-trace.c client/cmd-trace-record.c \
	client/control-client.c client/control-socket.c client/answer.c client/render-status.c client/render-processes.c client/render-history.c \
	client/render-report.c client/ask.c client/cmd-status.c client/cmd-processes.c \
	client/cmd-history.c client/cmd-report.c client/cmd-diff.c client/cmd-mark.c client/mark-trace.c client/report-trace.c client/cmd-events.c \
	client/cmd-metrics.c client/cmd-sql.c client/cmd-oom.c client/render-oom.c \
	client/cmd-top.c client/top-ask.c client/top-model.c client/top-layout.c client/top-screen.c
CLIENT_SRCS += client/render-region-changes.c client/style.c
CLIENT_SRCS += client/chart.c client/render-html.c client/render-html-charts.c
CLIENT_SRCS += client/command-table.c client/heap-words.c
CLIENT_MAIN := client/ramwatch.c

# ================================================================== include paths, per layer

INC_common := -Icommon
INC_scanner := $(INC_common) -Iscanner
INC_trace := $(INC_common) -Itrace
INC_schema := $(INC_scanner) -Ischema
INC_daemon := $(INC_schema) -Idaemon -I$(BUILD)/gen
INC_client := $(INC_schema) -Itrace -Iclient
# tests and benchmarks see every layer
INC_tests := $(INC_common) -Iscanner -Itrace -Ischema -Idaemon -Iclient -Itests/unit
INC_tests += -Idaemon/windows
INC_bench := $(INC_schema)

# An object of a layer's folder, with that layer's include paths only.
define layer_objects
$(BUILD)/$(1)/%.o: $(1)/%.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) $$(INC_$(2)) -c -o $$@ $$<
endef
$(eval $(call layer_objects,common,common))
$(eval $(call layer_objects,scanner,scanner))
$(eval $(call layer_objects,trace,trace))
$(eval $(call layer_objects,schema,schema))
$(eval $(call layer_objects,daemon,daemon))
$(eval $(call layer_objects,client,client))
$(eval $(call layer_objects,tests/unit,tests))
$(eval $(call layer_objects,bench,bench))

# (the folder too: a migration file gone, on another branch, changes it
# and none of the files left)
$(BUILD)/schema/migrations.c: schema/embed-migrations.py $(SCHEMA_MIGRATIONS) schema/migrations
	@mkdir -p $(dir $@)
	$(PYTHON) schema/embed-migrations.py $@ $(SCHEMA_MIGRATIONS)

# The BPF programs (daemon/*.bpf.c: the change watch, the OOM watch, the
# process watch), compiled for the kernel's virtual machine with its BTF
# (CO-RE: field offsets are taken from the running kernel at load) and
# embedded in ramwatchd as libbpf skeleton headers.
BPF_CLANG ?= clang
BPF_INCLUDE := -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null) -Idaemon
$(BUILD)/gen/%.bpf.o: daemon/%.bpf.c
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -g -O2 -target bpf -mcpu=v3 -Wall -Werror $(BPF_INCLUDE) -c -o $@ $<

$(BUILD)/gen/%.skel.h: $(BUILD)/gen/%.bpf.o
	bpftool gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/oom-watch.bpf.o: daemon/oom-watch-event.h
$(BUILD)/daemon/change-watch.o: | $(BUILD)/gen/change-watch.skel.h
$(BUILD)/daemon/oom-watch.o: | $(BUILD)/gen/oom-watch.skel.h
$(BUILD)/gen/process-watch.bpf.o: daemon/process-watch-event.h
$(BUILD)/daemon/process-watch.o: | $(BUILD)/gen/process-watch.skel.h

$(BUILD)/schema/migrations.o: $(BUILD)/schema/migrations.c
	$(CC) $(ALL_CFLAGS) $(INC_schema) -c -o $@ $<

# ================================================================== libraries, one per component

objects = $(patsubst %.c,$(BUILD)/%.o,$(1))

COMMON_LIB := $(BUILD)/lib/libcommon.a
SCANNER_LIB := $(BUILD)/lib/libscanner.a
TRACE_LIB := $(BUILD)/lib/libtrace.a
SCHEMA_LIB := $(BUILD)/lib/libschema.a
DAEMON_LIB := $(BUILD)/lib/libdaemon.a
CLIENT_LIB := $(BUILD)/lib/libclient.a

$(COMMON_LIB): $(call objects,$(COMMON_SRCS))
$(SCANNER_LIB): $(call objects,$(SCANNER_SRCS))
$(TRACE_LIB): $(call objects,$(TRACE_SRCS))
$(SCHEMA_LIB): $(call objects,$(SCHEMA_SRCS)) $(patsubst %.c,%.o,$(SCHEMA_GENERATED))
$(DAEMON_LIB): $(call objects,$(DAEMON_SRCS))
$(CLIENT_LIB): $(call objects,$(CLIENT_SRCS))

$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

# highest layer first, for the linker
DAEMON_LIBS := $(DAEMON_LIB) $(SCHEMA_LIB) $(SCANNER_LIB) $(COMMON_LIB)
CLIENT_LIBS := $(CLIENT_LIB) $(SCHEMA_LIB) $(TRACE_LIB) $(SCANNER_LIB) $(COMMON_LIB)
ALL_LIBS := $(CLIENT_LIB) $(DAEMON_LIB) $(SCHEMA_LIB) $(TRACE_LIB) $(SCANNER_LIB) $(COMMON_LIB)
BENCH_LIBS := $(SCHEMA_LIB) $(SCANNER_LIB) $(COMMON_LIB)

# ================================================================== programs

.PHONY: all run check check-build check-unit check-integration check-sanitizers check-layers fuzz lint-man soak soak-asan \
	check-docs schema-doc \
	bench bench-scan bench-census bench-gpu-start bench-evidence bench-heap bench-daemon bench-history bench-store-size bench-trace bench-tracer \
	install uninstall clean deps deps-packaging check-units deb rpm check-install check-metrics check-gpu-script

all: $(BUILD)/ramwatch $(BUILD)/ramwatchd $(BUILD)/libramwatch-trace.so

# ramwatch top's screen (client/top-screen.c): the client alone links curses
CURSES_LIBS = $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)

$(BUILD)/ramwatch: $(call objects,$(CLIENT_MAIN)) $(CLIENT_LIBS)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(CLIENT_LIBS) $(LIBS) $(CURSES_LIBS)

$(BUILD)/ramwatchd: $(call objects,$(DAEMON_MAIN)) $(DAEMON_LIBS)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(DAEMON_LIBS) $(LIBS)

# ================================================================== tests

# Unit tests (cmocka), one per module: tests/README.md says which tests which.
UNIT_TESTS := test-util test-log test-strpool test-text test-hashtab test-timeparse test-units test-error test-json-field \
	test-smaps test-proc-parse test-classes test-classify test-runtimes test-census test-evidence-checks test-evidence test-memimage test-heap-walk test-heap-glibc test-census-json \
	test-heap-pymalloc test-heap-jemalloc test-heap-jvm test-heap-mimalloc test-heap-tcmalloc \
	test-scan-live test-region-events test-heap-trend test-gpu test-gpu-census test-win-census \
	test-trace-parse test-trace-analyzer test-trace-scopes test-trace-ledger test-trace-live test-trace-report \
	test-trace-replay test-trace-export test-trace-binary test-trace-stacks \
	test-store test-store-failures test-store-salvage test-store-retention test-store-read test-store-read-report test-store-read-events test-store-read-gpu test-store-read-history test-store-read-page test-store-oom test-store-coalesce test-sample-row test-census-counters test-store-repeat test-store-delta test-steady test-query test-query-limits \
	test-config test-config-values test-config-files test-selector \
	test-sysmem test-event-loop test-schedule test-pidmap test-store-aside test-writer test-export test-watched test-census-tier test-discover test-fast-tier test-proc-connector test-oom-kmsg test-oom-kills test-near-limit test-kmsg-source test-cgroup-mem test-oom-watch test-process-watch test-change-watch test-status-line test-daemon-clock \
	test-control-request test-request-table test-control-buffer test-control-access test-control-processes test-control-worker \
	test-render test-render-html test-command-table test-control-client test-render-answers test-top test-chart
UNIT_TESTS += test-win-procs test-win-sid test-win-sysmem
UNIT_BINS := $(addprefix $(BUILD)/tests/,$(UNIT_TESTS))

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LIBS) -lcmocka $(TEST_LIBS_$*)
# the table of commands reaches every command, top's screen with them
TEST_LIBS_test-command-table = $(CURSES_LIBS)

# Programs the integration tests run to prepare what they check:
# store-fill writes through the store (as the daemon does) the rows of
# sources a test cannot make at will, OOM kills and memory cgroups.
TEST_TOOLS := $(BUILD)/tests/tools/store-fill
$(BUILD)/tests/tools/%: tests/tools/%.c $(BENCH_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_schema) $(LDFLAGS) -o $@ $< $(BENCH_LIBS) $(LIBS)

# The helpers are the processes under test: never sanitized, so their memory
# has the shapes they report.
HELPERS := shapes many-maps churn mapfiles residency steady allocs allocs-jemalloc allocs-mimalloc allocs-tcmalloc \
	glibc-heap jemalloc-heap jemalloc-heap-static heapstat-mimalloc heapstat-tcmalloc
HELPER_BINS := $(addprefix $(BUILD)/helpers/,$(HELPERS))
HELPER_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -g $(WARNINGS)

$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -lpthread

# preloaded before libfaketime by test_clock.py (tests/helpers/real-timerfd.c says why)
HELPER_BINS += $(BUILD)/helpers/real-timerfd.so
$(BUILD)/helpers/real-timerfd.so: tests/helpers/real-timerfd.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -shared -fPIC -o $@ $<

# the allocator helper linked with each allocator Debian ships: malloc is then theirs
ALLOCATOR_LIB_jemalloc := -ljemalloc
ALLOCATOR_LIB_mimalloc := -lmimalloc
ALLOCATOR_LIB_tcmalloc := -ltcmalloc_minimal

$(BUILD)/helpers/allocs-%: tests/helpers/allocs.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -lpthread $(ALLOCATOR_LIB_$*)

# a fragmented jemalloc heap that tells mallctl's statistics: with Debian's
# libjemalloc.so, and with its libjemalloc.a inside the program
$(BUILD)/helpers/jemalloc-heap: tests/helpers/jemalloc-heap.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -lpthread -ljemalloc

$(BUILD)/helpers/jemalloc-heap-static: tests/helpers/jemalloc-heap.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -Wl,-Bstatic -ljemalloc -Wl,-Bdynamic -lpthread -ldl -lm -lstdc++

# the fragmented heap helper, with the allocator's own figures: built against each allocator's API
HEAPSTAT_FLAGS_mimalloc := -DHEAPSTAT_MIMALLOC
HEAPSTAT_FLAGS_tcmalloc := -DHEAPSTAT_TCMALLOC

$(BUILD)/helpers/heapstat-%: tests/helpers/heapstat.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) $(HEAPSTAT_FLAGS_$*) -o $@ $< -lpthread $(ALLOCATOR_LIB_$*)

$(BUILD)/helpers/many-maps: bench/many-maps.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $<

# ---- gpu (scanner/gpu*.c, tests/gpu-standin): GPU memory from NVML and the CUDA driver, loaded at run time
# The stand-ins are test fixtures only: libraries with NVML's and the CUDA
# driver's symbols that answer from a script ($RAMWATCH_STANDIN_SCRIPT,
# tests/gpu-standin/script.h), so the GPU code runs end to end without a
# GPU.  Never installed; never sanitized (the programs under test load
# them).  tests/gpu/check.sh is for a host with a GPU; its program is built
# here so that it compiles everywhere.
GPU_STANDIN := $(BUILD)/gpu-standin
GPU_STANDIN_SRCS := tests/gpu-standin/script.c tests/gpu-standin/script.h
GPU_STANDINS := $(GPU_STANDIN)/libnvidia-ml.so.1 $(GPU_STANDIN)/nov3/libnvidia-ml.so.1 \
	$(GPU_STANDIN)/v1/libnvidia-ml.so.1 $(GPU_STANDIN)/libcuda.so.1
GPU_CHECK_BINS := $(BUILD)/gpu/cuda-alloc
STANDIN_CFLAGS = -std=gnu11 -D_GNU_SOURCE -O2 -g $(WARNINGS) -fPIC -shared -Itests/gpu-standin

$(GPU_STANDIN)/libnvidia-ml.so.1: tests/gpu-standin/nvml.c $(GPU_STANDIN_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -Wl,-soname,libnvidia-ml.so.1 -o $@ $< tests/gpu-standin/script.c

$(GPU_STANDIN)/nov3/libnvidia-ml.so.1: tests/gpu-standin/nvml.c $(GPU_STANDIN_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -DSTANDIN_NO_V3 -Wl,-soname,libnvidia-ml.so.1 -o $@ $< tests/gpu-standin/script.c

$(GPU_STANDIN)/v1/libnvidia-ml.so.1: tests/gpu-standin/nvml.c $(GPU_STANDIN_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -DSTANDIN_V1_ONLY -Wl,-soname,libnvidia-ml.so.1 -o $@ $< tests/gpu-standin/script.c

$(GPU_STANDIN)/libcuda.so.1: tests/gpu-standin/cuda.c $(GPU_STANDIN_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(STANDIN_CFLAGS) -Wl,-soname,libcuda.so.1 -o $@ $< tests/gpu-standin/script.c

# Plain gcc and libdl: what the GPU host's check builds it with.
$(BUILD)/gpu/cuda-alloc: tests/gpu/cuda-alloc.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g $(WARNINGS) -o $@ $< -ldl

check-gpu-script: $(GPU_CHECK_BINS)
	bash -n tests/gpu/check.sh
# ---- end of gpu

# ---- tracer (tracer/): libramwatch-trace.so, the allocation tracer that
# ramwatch trace record preloads.  Never sanitized: it is loaded into the
# program under test, whose malloc it replaces.  It sees common/ only
# through its own header rules (tracer/tracer.h: nothing that allocates).
TRACER_SRCS := tracer/tracer-hooks.c tracer/tracer-ring.c tracer/tracer-writer.c tracer/tracer-session.c \
	tracer/tracer-scope.c tracer/tracer-small.c tracer/tracer-objects.c tracer/tracer-stack.c \
	trace/trace-binary.c
TRACER_LIB := $(BUILD)/libramwatch-trace.so
TRACER_CFLAGS := -std=gnu11 -D_GNU_SOURCE -DRAMWATCH_VERSION='"$(VERSION)"' -O2 -g $(WARNINGS) -fPIC \
	-fvisibility=hidden -ftls-model=initial-exec -fno-builtin -fno-omit-frame-pointer -flto -pthread -Itracer -Itrace

$(TRACER_LIB): $(TRACER_SRCS) tracer/tracer.h trace/trace-binary.h tracer/ramwatch-trace.h $(BUILD)/python/ramwatch_trace.py
	@mkdir -p $(dir $@)
	$(CC) $(TRACER_CFLAGS) $(CFLAGS) -shared -Wl,-soname,libramwatch-trace.so $(filter-out -fsanitize%,$(LDFLAGS)) \
		-o $@ $(TRACER_SRCS) -ldl -lpthread

# beside the library, where ramwatch trace record puts it on PYTHONPATH
$(BUILD)/python/ramwatch_trace.py: tracer/ramwatch_trace.py
	@mkdir -p $(dir $@)
	cp $< $@

# where trace record looks for the installed library
$(BUILD)/client/cmd-trace-record.o: ALL_CFLAGS += -DRAMWATCH_LIBDIR='"$(TRACERDIR)"'

# programs with known allocation patterns for tests/integration/test_trace_record.py
TRACE_HELPERS := trace-patterns trace-flood trace-churn
TRACE_HELPER_BINS := $(addprefix $(BUILD)/helpers/,$(TRACE_HELPERS))
$(BUILD)/helpers/trace-%: tests/helpers/trace-%.c tracer/ramwatch-trace.h
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -O0 -fno-omit-frame-pointer -fno-builtin -Itracer -o $@ $< -lpthread
# ---- end of tracer

check-build: $(BUILD)/ramwatch $(BUILD)/ramwatchd $(UNIT_BINS) $(HELPER_BINS) $(GPU_STANDINS) $(GPU_CHECK_BINS) $(TRACER_LIB) $(TRACE_HELPER_BINS) \
	$(TEST_TOOLS)

check-unit: check-build
	@set -e; for t in $(UNIT_BINS); do \
		echo "== $$t"; RAMWATCH_TEST_DATA=tests/data RAMWATCH_BUILD=$(BUILD) $$t; done

check-integration: check-build
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) -m pytest -q tests/integration

check-sanitizers:
	$(MAKE) BUILD=build/sanitize SANITIZE=1 check-unit check-integration

# Each layer's include paths against a header of every layer it must not
# see: each probe must fail to compile, and the same probe with the
# header's own layer must compile (so a failure is the layering's, not a
# broken probe's).
LAYER_PROBES := common:scanner:census.h common:trace:trace-event.h scanner:trace:trace-event.h \
	trace:scanner:census.h scanner:schema:store.h trace:schema:store.h schema:daemon:manager.h \
	schema:client:render-census.h daemon:client:render-census.h daemon:trace:trace-event.h client:daemon:manager.h

check-layers:
	@set -e; for p in $(LAYER_PROBES); do \
		from=$${p%%:*}; rest=$${p#*:}; to=$${rest%%:*}; header=$${rest#*:}; \
		case $$from in common) inc="$(INC_common)";; scanner) inc="$(INC_scanner)";; trace) inc="$(INC_trace)";; \
			schema) inc="$(INC_schema)";; daemon) inc="$(INC_daemon)";; client) inc="$(INC_client)";; esac; \
		case $$to in scanner) own="$(INC_scanner)";; trace) own="$(INC_trace)";; schema) own="$(INC_schema)";; \
			daemon) own="$(INC_daemon)";; client) own="$(INC_client)";; esac; \
		printf '#include "%s"\n' $$header | $(CC) $(BASE_CFLAGS) -MF /dev/null $$own -fsyntax-only -x c - || \
			{ echo "check-layers: $$header does not compile even in $$to's own layer"; exit 1; }; \
		if printf '#include "%s"\n' $$header | $(CC) $(BASE_CFLAGS) -MF /dev/null $$inc -fsyntax-only -x c - \
			2>/dev/null; then echo "check-layers: $$from/ can include $$to/$$header"; exit 1; fi; \
		echo "check-layers: $$from/ cannot include $$to/$$header, as it should not"; done

# The fuzz targets are built from the sources with clang's libFuzzer.
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(INC_scanner) -g -O1 -fsanitize=fuzzer,address,undefined
FUZZ_SRCS := scanner/smaps.c scanner/smaps-fast.c scanner/region.c scanner/classify.c scanner/classify-shapes.c scanner/classes.c \
	scanner/runtimes.c scanner/census.c \
	scanner/proc-parse.c common/strpool.c common/hashtab.c common/util.c
FUZZ_EVIDENCE_SRCS := scanner/smaps.c scanner/smaps-fast.c scanner/region.c scanner/classify.c \
	scanner/classify-shapes.c scanner/classes.c scanner/runtimes.c scanner/memsource.c scanner/memimage.c scanner/evidence.c \
	scanner/evidence-checks.c scanner/evidence-split.c common/strpool.c common/hashtab.c common/util.c
FUZZ_TRACE_SRCS := $(filter-out trace/trace-export.c,$(TRACE_SRCS))
FUZZ_TRACE_SEEDS := tests/data/trace

$(BUILD)/fuzz/fuzz-smaps: tests/fuzz/fuzz-smaps.c $(FUZZ_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz-evidence: tests/fuzz/fuzz-evidence.c $(FUZZ_EVIDENCE_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $^

# The trace fuzz target replays whole inputs (parsers, analyzer, both reports).
$(BUILD)/fuzz/fuzz-trace: tests/fuzz/fuzz-trace.c $(FUZZ_TRACE_SRCS) common/text.c common/hashtab.c common/error.c
	@mkdir -p $(dir $@)
	clang -std=gnu11 -D_GNU_SOURCE $(INC_trace) -g -O1 -fsanitize=fuzzer,address,undefined \
		-o $@ $^ -ljansson -ldl

# The targets of the other inputs (tests/data/fuzz/<target>/ holds their
# seeds, tests/fuzz/fuzz-<target>.dict their words): each is built from the
# sources it needs, with the include paths of its highest layer.
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -DRAMWATCH_VERSION='"$(VERSION)"' -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIBS := -ljansson -lsqlite3 -lsystemd -lbpf -lpthread -ldl
FUZZ_UNITS_SRCS := common/units.c common/timeparse.c common/util.c
FUZZ_PROC_SRCS := scanner/proc-parse.c common/util.c
FUZZ_CONFIG_SRCS := daemon/config.c daemon/config-parse.c daemon/config-table.c daemon/config-values.c \
	daemon/selector.c $(COMMON_SRCS)
FUZZ_CENSUS_JSON_SRCS := client/render-census.c client/heap-words.c client/table.c $(SCANNER_SRCS) $(COMMON_SRCS)
FUZZ_CONTROL_SRCS := $(DAEMON_SRCS) $(SCHEMA_SRCS) $(SCHEMA_GENERATED) $(SCANNER_SRCS) $(COMMON_SRCS)
FUZZ_NEW := units proc config census-json control win-capture trace-binary heap kmsg
# the Windows process snapshot's parser: seeds taken under Wine (tests/data/README.md)
FUZZ_NEW += win-procs
FUZZ_WIN_PROCS_SRCS := daemon/windows/win-procs.c common/error.c

$(BUILD)/fuzz/fuzz-trace-binary: tests/fuzz/fuzz-trace-binary.c $(FUZZ_TRACE_SRCS) common/text.c common/hashtab.c \
		common/error.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_trace) -o $@ $^ -ljansson -ldl

$(BUILD)/fuzz/fuzz-win-procs: tests/fuzz/fuzz-win-procs.c $(FUZZ_WIN_PROCS_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_common) -Idaemon/windows -o $@ $^

$(BUILD)/fuzz/fuzz-units: tests/fuzz/fuzz-units.c $(FUZZ_UNITS_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_common) -o $@ $^

$(BUILD)/fuzz/fuzz-proc: tests/fuzz/fuzz-proc.c $(FUZZ_PROC_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_scanner) -o $@ $^

# OOM kills read from kernel log records
$(BUILD)/fuzz/fuzz-kmsg: tests/fuzz/fuzz-kmsg.c daemon/oom-kmsg.c common/text.c common/util.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_daemon) -o $@ $^ $(FUZZ_LIBS)

$(BUILD)/fuzz/fuzz-config: tests/fuzz/fuzz-config.c $(FUZZ_CONFIG_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_daemon) -o $@ $^ $(FUZZ_LIBS)

$(BUILD)/fuzz/fuzz-win-capture: tests/fuzz/fuzz-win-capture.c $(SCANNER_SRCS) $(COMMON_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_scanner) -o $@ $^ $(FUZZ_LIBS)

# the heap walkers, every one of the registry (scanner/heap-walkers.h), on
# corrupted heaps: seeds in tests/data/fuzz/heap, fixtures read at start
$(BUILD)/fuzz/fuzz-heap: tests/fuzz/fuzz-heap.c $(SCANNER_SRCS) $(COMMON_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_scanner) -o $@ $^ $(FUZZ_LIBS)

$(BUILD)/fuzz/fuzz-census-json: tests/fuzz/fuzz-census-json.c $(FUZZ_CENSUS_JSON_SRCS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_client) -o $@ $^ $(FUZZ_LIBS)

$(BUILD)/fuzz/fuzz-control: tests/fuzz/fuzz-control.c $(FUZZ_CONTROL_SRCS) | $(BUILD)/gen/change-watch.skel.h $(BUILD)/gen/oom-watch.skel.h \
	$(BUILD)/gen/process-watch.skel.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) $(INC_daemon) -o $@ $^ $(FUZZ_LIBS)

fuzz: $(BUILD)/fuzz/fuzz-smaps $(BUILD)/fuzz/fuzz-evidence $(BUILD)/fuzz/fuzz-trace \
	$(addprefix $(BUILD)/fuzz/fuzz-,$(FUZZ_NEW))
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/evidence-corpus $(BUILD)/fuzz/fuzz-trace.corpus
	$(BUILD)/fuzz/fuzz-smaps -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=1024 \
		$(BUILD)/fuzz/corpus tests/data/smaps
	$(BUILD)/fuzz/fuzz-evidence -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -rss_limit_mb=1024 \
		-dict=tests/fuzz/memimage.dict $(BUILD)/fuzz/evidence-corpus tests/data/memimage
	$(BUILD)/fuzz/fuzz-trace -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 \
		$(BUILD)/fuzz/fuzz-trace.corpus $(FUZZ_TRACE_SEEDS)
	@set -e; for t in $(FUZZ_NEW); do \
		mkdir -p $(BUILD)/fuzz/fuzz-$$t.corpus; \
		dict=; if [ -f tests/fuzz/fuzz-$$t.dict ]; then dict=-dict=tests/fuzz/fuzz-$$t.dict; fi; \
		echo "$(BUILD)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) $$dict"; \
		RAMWATCH_TEST_DATA=tests/data $(BUILD)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-rss_limit_mb=1024 -timeout=30 $$dict $(BUILD)/fuzz/fuzz-$$t.corpus tests/data/fuzz/$$t; done

lint-man:
	mandoc -T lint -W warning man/*.[0-9]

# Every file, function and constant README.md, tests/README.md and doc/*.md
# name is in the tree, and no file cites a document the repository lacks
# (tests/check-docs.py says how it tells).
check-docs:
	$(PYTHON) tests/check-docs.py

# doc/schema.sql, the schema of a new database, dumped from one the built
# ramwatchd creates (tests/schema-doc.py).  After adding or changing a
# migration, run this: tests/integration/test_schema_doc.py compares the
# file with a new database and fails until it is done.
schema-doc: $(BUILD)/ramwatchd
	$(PYTHON) tests/schema-doc.py --daemon $(BUILD)/ramwatchd --out doc/schema.sql

# The soak test (tests/soak/soak.py): a real daemon watching a churning
# population with clients, reloads, kill -9s and a full disk; minutes by
# default, SOAK_SECONDS=3600 for an hour.  make soak-asan runs it with the
# daemon built with ASan, whose leak checker runs when it stops.
SOAK_SECONDS ?= 240

soak: deps check-build
	RAMWATCH_BUILD=$(abspath $(BUILD)) SOAK_SECONDS=$(SOAK_SECONDS) $(PYTHON) tests/soak/soak.py

soak-asan: deps
	$(MAKE) BUILD=build/sanitize SANITIZE=1 check-build
	RAMWATCH_BUILD=$(abspath build/sanitize) SANITIZE=1 SOAK_SECONDS=$(SOAK_SECONDS) $(PYTHON) tests/soak/soak.py

check: deps
	$(MAKE) deps DEB_PACKAGES="$(CHECK_DEB_PACKAGES)"
	$(MAKE) check-unit check-integration
	$(MAKE) check-windows
	$(MAKE) check-sanitizers
	$(MAKE) fuzz
	$(MAKE) check-layers
	$(MAKE) lint-man
	$(MAKE) check-docs
	@echo "all checks passed"

# ---- metrics (daemon/export*.c, ramwatch metrics): checked by Prometheus's own promtool
#   make check-metrics   installs Debian's prometheus package for promtool and runs the metrics
#                        tests with promtool required (without it they skip)
# The package is the whole Prometheus server (96 MB installed), too much to
# pull into every "make deps" (make run's) for one checker: it has its own
# list, which make check installs too, with systemd for the socket
# activation test (systemd-socket-activate), so that on a fresh machine
# nothing there is skipped for want of a program.
METRICS_DEB_PACKAGES := prometheus
CHECK_DEB_PACKAGES := $(METRICS_DEB_PACKAGES) systemd

check-metrics: deps
	$(MAKE) deps DEB_PACKAGES="$(METRICS_DEB_PACKAGES)"
	$(MAKE) check-build
	RAMWATCH_BUILD=$(abspath $(BUILD)) RAMWATCH_REQUIRE_PROMTOOL=1 $(PYTHON) -m pytest -q tests/integration/test_export.py

# ================================================================== run, bench

RUN_SECONDS ?= 30
RUN_STATE ?= $(BUILD)/state
RUN_MIN_PRIVATE ?= 1M
RUN_STORE_INTERVAL ?= 5s

# The main job: ramwatchd in the foreground with the default configuration
# and a local state directory, for RUN_SECONDS (Ctrl-C stops it sooner;
# RUN_SECONDS=0 runs until then), then what it recorded, read with sqlite3.
# A drop-in lowers MinPrivate and StoreInterval so that even a quiet machine,
# where nothing holds the default 64 MiB, shows timelines and censuses.
run: deps $(BUILD)/ramwatch $(BUILD)/ramwatchd
	@mkdir -p $(RUN_STATE) $(BUILD)/run/ramwatchd.conf.d
	@cp packaging/ramwatchd.conf $(BUILD)/run/ramwatchd.conf
	@printf '[Watch]\nMinPrivate=%s\n[Sampling]\nStoreInterval=%s\n' $(RUN_MIN_PRIVATE) $(RUN_STORE_INTERVAL) \
		> $(BUILD)/run/ramwatchd.conf.d/run.conf
	@echo "ramwatchd: watching every process with at least $(RUN_MIN_PRIVATE) of private memory for $(RUN_SECONDS) s" \
		"(Ctrl-C stops it); database $(RUN_STATE)/ramwatch.db"
	timeout --foreground --preserve-status -s INT $(RUN_SECONDS) $(BUILD)/ramwatchd --foreground \
		--config $(BUILD)/run/ramwatchd.conf --state-dir $(RUN_STATE)
	@echo
	sqlite3 -readonly -box $(RUN_STATE)/ramwatch.db < doc/recorded.sql

bench: bench-scan bench-census bench-evidence bench-heap bench-daemon bench-history bench-trace

$(BUILD)/bench/idle-target: bench/idle-target.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -lpthread

$(BUILD)/bench/statm-reader: bench/statm-reader.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $<

# ramwatchd watching 1,000 processes, beside the floor and top, and with
# 10,000 present (BENCHMARKS.md).
bench-daemon: deps $(BUILD)/ramwatchd $(BUILD)/bench/idle-target $(BUILD)/bench/statm-reader
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/daemon-bench.py $(BENCH_DAEMON_ARGS)

# The benchmarks that call the libraries, linked with them.
$(BUILD)/bench/scan-parts $(BUILD)/bench/evidence-loop $(BUILD)/bench/history-bench $(BUILD)/bench/store-size \
		$(BUILD)/bench/steady-check: $(BUILD)/bench/%: \
		$(BUILD)/bench/%.o $(BENCH_LIBS)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_LIBS) $(LIBS)

bench-scan: deps $(BUILD)/ramwatch $(BUILD)/helpers/many-maps $(BUILD)/bench/scan-parts $(BUILD)/bench/steady-check
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/scan-bench.py

# what a census of an unchanged process costs the daemon, beside a full
# census, with and without the change watch (BENCHMARKS.md)
bench-census: deps $(BUILD)/ramwatchd $(BUILD)/ramwatch $(BUILD)/helpers/many-maps $(BUILD)/bench/steady-check
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/census-bench.py $(BENCH_CENSUS_ARGS)

# what a slow start of NVML costs a one-shot census, with the stand-in NVML (BENCHMARKS.md)
bench-gpu-start: deps $(BUILD)/ramwatch $(BUILD)/helpers/many-maps $(GPU_STANDINS)
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/gpu-start-bench.py

# what evidence costs a census, per program (BENCHMARKS.md)
bench-evidence: deps $(BUILD)/ramwatch $(BUILD)/bench/evidence-loop $(HELPER_BINS)
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/evidence-bench.py

# what the heap walks cost a census, per GiB and per 100k chunks (BENCHMARKS.md)
bench-heap: deps $(BUILD)/ramwatch $(addprefix $(BUILD)/helpers/,glibc-heap jemalloc-heap heapstat-mimalloc heapstat-tcmalloc)
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/heap-bench.py

# A week of one process's timeline at the default settings among 50 others,
# read back by history and report beside a plain count of the same rows
# (BENCHMARKS.md).
BENCH_HISTORY_RUNS ?= 21

# Database bytes per process-day, coalesced and not (BENCHMARKS.md).
bench-store-size: $(BUILD)/bench/store-size
	$(BUILD)/bench/store-size --processes 100 --dir $(BUILD)/bench-store-size

bench-history: $(BUILD)/bench/history-bench
	$(BUILD)/bench/history-bench --runs $(BENCH_HISTORY_RUNS) --dir $(BUILD)/bench-history

# Traces of 1 M and 20 M events in $(BUILD)/bench-trace, replayed beside
# jq and wc (BENCHMARKS.md).
$(BUILD)/bench/trace-gen: bench/trace-gen.c trace/trace-binary.c trace/trace-binary.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itrace $(LDFLAGS) -o $@ bench/trace-gen.c trace/trace-binary.c

# where a replay's time goes: reading, splitting, parsing, the analyzer
$(BUILD)/bench/trace-parts: bench/trace-parts.c $(TRACE_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_trace) $(LDFLAGS) -o $@ $< $(TRACE_LIB) $(COMMON_LIB) $(LIBS)

$(BUILD)/bench/trace-rss: bench/trace-rss.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# what new memory costs a page, faulted or populated (common/populate.h)
$(BUILD)/bench/page-populate: bench/page-populate.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

bench-trace: deps $(BUILD)/ramwatch $(BUILD)/bench/trace-gen $(BUILD)/bench/trace-rss $(BUILD)/bench/trace-parts \
		$(BUILD)/bench/page-populate
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/trace-bench.py

# The tracer's overhead on a malloc-heavy program beside heaptrack (BENCHMARKS.md)
$(BUILD)/bench/malloc-heavy: bench/malloc-heavy.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -o $@ $< -lpthread

# the floor of any preloaded tracer: malloc and free passed straight through
$(BUILD)/bench/libmalloc-passthrough.so: bench/malloc-passthrough.c
	@mkdir -p $(dir $@)
	$(CC) $(HELPER_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -ldl

bench-tracer: deps $(TRACER_LIB) $(BUILD)/ramwatch $(BUILD)/bench/malloc-heavy $(BUILD)/bench/libmalloc-passthrough.so
	RAMWATCH_BUILD=$(abspath $(BUILD)) $(PYTHON) bench/tracer-bench.py

# ================================================================== install, packaging

# Where systemd looks for units, sysusers.d and tmpfiles.d files: its own
# pkg-config says (Debian 12: /lib/systemd/system, /usr/lib/sysusers.d,
# /usr/lib/tmpfiles.d), else those.
UNITDIR ?= $(or $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
SYSUSERSDIR ?= $(or $(shell $(PKG_CONFIG) --variable=sysusersdir systemd 2>/dev/null),/usr/lib/sysusers.d)
TMPFILESDIR ?= $(or $(shell $(PKG_CONFIG) --variable=tmpfilesdir systemd 2>/dev/null),/usr/lib/tmpfiles.d)

# The unit names the installed daemon, and its configuration when it is not
# the built-in /etc/ramwatch/ramwatchd.conf.
UNIT_EXEC := $(SBINDIR)/ramwatchd --foreground$(if $(filter-out /etc,$(SYSCONFDIR)), --config \
	$(SYSCONFDIR)/ramwatch/ramwatchd.conf)

install: $(BUILD)/ramwatch $(BUILD)/ramwatchd $(TRACER_LIB)
	install -D -m 0644 $(TRACER_LIB) $(DESTDIR)$(TRACERDIR)/libramwatch-trace.so
	install -D -m 0644 tracer/ramwatch_trace.py $(DESTDIR)$(TRACERDIR)/python/ramwatch_trace.py
	install -D -m 0644 tracer/ramwatch-trace.h $(DESTDIR)$(INCLUDEDIR)/ramwatch-trace.h
	install -D -m 0644 man/ramwatch-trace.3 $(DESTDIR)$(MANDIR)/man3/ramwatch-trace.3
	install -D -m 0755 $(BUILD)/ramwatch $(DESTDIR)$(BINDIR)/ramwatch
	install -D -m 0755 $(BUILD)/ramwatchd $(DESTDIR)$(SBINDIR)/ramwatchd
	install -D -m 0644 man/ramwatch.1 $(DESTDIR)$(MANDIR)/man1/ramwatch.1
	install -D -m 0644 man/ramwatchd.8 $(DESTDIR)$(MANDIR)/man8/ramwatchd.8
	install -D -m 0644 man/ramwatchd.conf.5 $(DESTDIR)$(MANDIR)/man5/ramwatchd.conf.5
	install -D -m 0644 man/ramwatch-schema.7 $(DESTDIR)$(MANDIR)/man7/ramwatch-schema.7
	install -D -m 0644 packaging/grafana/ramwatch.json $(DESTDIR)$(PREFIX)/share/ramwatch/grafana/ramwatch.json
	install -D -m 0644 completions/ramwatch.bash $(DESTDIR)$(BASHCOMPDIR)/ramwatch
	install -D -m 0644 completions/_ramwatch $(DESTDIR)$(ZSHCOMPDIR)/_ramwatch
	@# an existing ramwatchd.conf is the administrator's: never overwritten
	test -e $(DESTDIR)$(SYSCONFDIR)/ramwatch/ramwatchd.conf || \
		install -D -m 0644 packaging/ramwatchd.conf $(DESTDIR)$(SYSCONFDIR)/ramwatch/ramwatchd.conf
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed 's|^ExecStart=/usr/sbin/ramwatchd --foreground$$|ExecStart=$(UNIT_EXEC)|' \
		packaging/systemd/ramwatchd.service > $(DESTDIR)$(UNITDIR)/ramwatchd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ramwatchd.service
	install -m 0644 packaging/systemd/ramwatchd.socket $(DESTDIR)$(UNITDIR)/ramwatchd.socket
	install -D -m 0644 packaging/sysusers.d/ramwatch.conf $(DESTDIR)$(SYSUSERSDIR)/ramwatch.conf
	install -D -m 0644 packaging/tmpfiles.d/ramwatch.conf $(DESTDIR)$(TMPFILESDIR)/ramwatch.conf
	@if [ -z "$(DESTDIR)" ]; then \
		echo "installed; to create the user and directories and start the service:"; \
		echo "  systemd-sysusers ramwatch.conf && systemd-tmpfiles --create ramwatch.conf"; \
		echo "  systemctl daemon-reload && systemctl enable --now ramwatchd.socket ramwatchd.service"; fi

# The database (/var/lib/ramwatch) and the user ramwatch stay: they are
# data, not the program.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ramwatch $(DESTDIR)$(MANDIR)/man1/ramwatch.1
	rm -f $(DESTDIR)$(SBINDIR)/ramwatchd $(DESTDIR)$(MANDIR)/man8/ramwatchd.8
	rm -f $(DESTDIR)$(MANDIR)/man5/ramwatchd.conf.5 $(DESTDIR)$(SYSCONFDIR)/ramwatch/ramwatchd.conf
	rm -f $(DESTDIR)$(MANDIR)/man7/ramwatch-schema.7 $(DESTDIR)$(MANDIR)/man3/ramwatch-trace.3
	rm -f $(DESTDIR)$(TRACERDIR)/libramwatch-trace.so $(DESTDIR)$(TRACERDIR)/python/ramwatch_trace.py
	rm -f $(DESTDIR)$(INCLUDEDIR)/ramwatch-trace.h
	rm -f $(DESTDIR)$(PREFIX)/share/ramwatch/grafana/ramwatch.json
	rm -f $(DESTDIR)$(BASHCOMPDIR)/ramwatch $(DESTDIR)$(ZSHCOMPDIR)/_ramwatch
	rm -f $(DESTDIR)$(UNITDIR)/ramwatchd.service $(DESTDIR)$(UNITDIR)/ramwatchd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/ramwatch.conf $(DESTDIR)$(TMPFILESDIR)/ramwatch.conf
	rmdir $(DESTDIR)$(SYSCONFDIR)/ramwatch 2>/dev/null || true

# ---- packaging (packaging/, debian/, tests/install/): units, .deb, .rpm, install test
#   make check-units     systemd-analyze verify, and security with an exposure of at most 2.0
#   make deb             build/deb/ramwatch_$(VERSION)_ARCH.deb (dpkg-buildpackage -b), lintian-clean
#   make rpm             build/rpm/RPMS/ARCH/ramwatch-$(VERSION)-1.ARCH.rpm (rpmbuild -bb)
#   make check-install   all three, then install the .deb and run the daemon as the unit would
UNIT_EXPOSURE_MAX := 20
PKG_TREE_EXCLUDES := --exclude=./build --exclude=./$(BUILD) --exclude=./.git --exclude=__pycache__ \
	--exclude=.pytest_cache --exclude='*.pyc'

# The source tree as it is (uncommitted changes included), without build
# outputs, copied into $(1): packages are built from a copy, so the work tree
# and its build/ stay as they are.
define copy_tree
	rm -rf $(1) && mkdir -p $(1)
	tar -c $(PKG_TREE_EXCLUDES) -f - . | tar -x -C $(1)
endef

deps-packaging:
	$(MAKE) deps DEB_PACKAGES="$(PACKAGING_DEB_PACKAGES)"

check-units: deps-packaging $(BUILD)/ramwatchd
	@rm -rf $(BUILD)/units && mkdir -p $(BUILD)/units
	@# verify wants the daemon where ExecStart says: the built one stands in
	sed 's|^ExecStart=/usr/sbin/ramwatchd|ExecStart=$(abspath $(BUILD))/ramwatchd|' \
		packaging/systemd/ramwatchd.service > $(BUILD)/units/ramwatchd.service
	cp packaging/systemd/ramwatchd.socket $(BUILD)/units/ramwatchd.socket
	@out=$$(systemd-analyze verify --man=no $(BUILD)/units/ramwatchd.service $(BUILD)/units/ramwatchd.socket 2>&1); \
		rc=$$?; if [ $$rc != 0 ] || [ -n "$$out" ]; then echo "$$out"; echo "systemd-analyze verify: the units have problems"; exit 1; fi
	@echo "systemd-analyze verify: ramwatchd.service and ramwatchd.socket are good"
	@out=$$(systemd-analyze security --offline=yes --threshold=$(UNIT_EXPOSURE_MAX) --no-pager \
		$(BUILD)/units/ramwatchd.service 2>&1); rc=$$?; \
		if [ $$rc != 0 ]; then echo "$$out"; echo "systemd-analyze security: the exposure is above the threshold" \
		"($(UNIT_EXPOSURE_MAX), in tenths)"; exit 1; fi; echo "$$out" | tail -n 1

deb: deps-packaging
	@test "$$(dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
		{ echo "debian/changelog is not at version $(VERSION): add an entry"; exit 1; }
	$(call copy_tree,$(BUILD)/deb/ramwatch-$(VERSION))
	cd $(BUILD)/deb/ramwatch-$(VERSION) && DEB_BUILD_OPTIONS="nocheck parallel=$$(nproc)" \
		dpkg-buildpackage -us -uc -b
	rm -rf $(BUILD)/deb/ramwatch-$(VERSION)
	lintian --fail-on error,warning --display-info $(BUILD)/deb/ramwatch_$(VERSION)_*.changes
	@ls $(BUILD)/deb/*.deb

rpm: deps-packaging
	@test "$$(sed -n 's/^Version: *//p' packaging/rpm/ramwatch.spec)" = "$(VERSION)" || \
		{ echo "packaging/rpm/ramwatch.spec is not at version $(VERSION)"; exit 1; }
	rm -rf $(BUILD)/rpm && mkdir -p $(BUILD)/rpm/SOURCES
	$(call copy_tree,$(BUILD)/rpm/tree/ramwatch-$(VERSION))
	tar -czf $(BUILD)/rpm/SOURCES/ramwatch-$(VERSION).tar.gz -C $(BUILD)/rpm/tree ramwatch-$(VERSION)
	cp packaging/sysusers.d/ramwatch.conf $(BUILD)/rpm/SOURCES/ramwatch.sysusers
	rm -rf $(BUILD)/rpm/tree
	rpmbuild -bb --nodeps --define "_topdir $(abspath $(BUILD))/rpm" packaging/rpm/ramwatch.spec
	@ls $(BUILD)/rpm/RPMS/*/*.rpm

# Installs the .deb on this machine, runs it, removes and purges it: root,
# Debian, and a machine where that is fine (CI's).
check-install: check-units deb rpm
	bash tests/install/test-install.sh $(BUILD)/deb/ramwatch_$(VERSION)_*.deb $(BUILD)/rpm/RPMS/*/ramwatch-$(VERSION)-*.rpm
# ---- end of packaging

# ================================================================== Windows
#
#   make windows        build/windows/ramwatch.exe: the one-shot commands (scan, summary,
#                       diff, trace summary), sql on a database file and the daemon's
#                       commands over its pipe (all but top), cross-built with
#                       mingw-w64, statically linked; and build/windows/ramwatchd.exe, the
#                       daemon (a service, or in the console with --foreground) over
#                       build/windows/lib/libdaemon.a, its core with Windows's side of its seams
#   make check-windows  build it and its test programs, run the Windows tests under Wine
#
# jansson and SQLite for Windows are built here from Debian's own source
# packages (apt-get source, from a deb-src entry of the same suite and mirror
# as apt's own entries, added as root when none exists) with the mingw
# toolchain, into build/windows/sysroot.

WIN_BUILD := $(BUILD)/windows
WIN_CC := x86_64-w64-mingw32-gcc
WIN_AR := x86_64-w64-mingw32-ar
WIN_SYSROOT := $(abspath $(WIN_BUILD))/sysroot
WIN_JANSSON := $(WIN_SYSROOT)/lib/libjansson.a
WIN_SQLITE := $(WIN_SYSROOT)/lib/libsqlite3.a
WIN_DEB_SRC := /etc/apt/sources.list.d/ramwatch-deb-src.sources
WIN_SUITE := $(shell . /etc/os-release 2>/dev/null && echo $$VERSION_CODENAME)
WIN_CFLAGS := -std=gnu11 -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 -DRAMWATCH_VERSION='"$(VERSION)"' \
	$(WARNINGS) -MMD -MP -O2 -I$(WIN_SYSROOT)/include -Icommon/windows/include -DJANSSON_STATIC
WIN_LDFLAGS := -static
WIN_LIBS := -L$(WIN_SYSROOT)/lib -ljansson -lsqlite3 -lpsapi -ladvapi32 -lpthread

# Fetches Debian's source package $(1) into $(WIN_BUILD)/src, adding the
# deb-src entry first when apt has none.
define win_apt_source
	@mkdir -p $(WIN_BUILD)/src
	@if ! apt-get source --print-uris $(1) >/dev/null 2>&1; then \
		if [ "$$(id -u)" != 0 ]; then echo "no deb-src entry for apt-get source $(1) (run as root: make windows)"; exit 1; fi; \
		uri=$$(cat /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$$1 == "URIs:" { print $$2; exit }'); \
		[ -n "$$uri" ] || uri=$$(awk '$$1 == "deb" { for (i = 2; i <= NF; i++) if ($$i ~ /:\/\//) { print $$i; exit } }' \
			/etc/apt/sources.list 2>/dev/null | head -1); \
		if [ -z "$$uri" ]; then echo "apt names no mirror to take Debian's source packages from (add a deb-src entry)"; exit 1; fi; \
		printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$$uri" "$(WIN_SUITE)" > $(WIN_DEB_SRC); \
		apt-get update -qq; \
	fi
	rm -rf $(WIN_BUILD)/src/$(1)-* $(WIN_BUILD)/src/$(1)_*
	cd $(WIN_BUILD)/src && apt-get source -qq $(1) 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
endef

$(WIN_JANSSON):
	$(call win_apt_source,jansson)
	cmake -S $$(ls -d $(WIN_BUILD)/src/jansson-*/ | head -1) -B $(WIN_BUILD)/src/jansson-build \
		-DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$(WIN_CC) -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX=$(WIN_SYSROOT) -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_BUILD_DOCS=OFF \
		-DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF -DJANSSON_INSTALL=ON >/dev/null
	cmake --build $(WIN_BUILD)/src/jansson-build -j2 >/dev/null
	cmake --install $(WIN_BUILD)/src/jansson-build >/dev/null

# SQLite's amalgamation (one sqlite3.c) is made by the source package's own
# configure and make (host tools and tclsh, about 35 s), then compiled with
# the options Debian builds libsqlite3 with (debian/rules), so that the
# Windows store and ramwatch sql behave as on Linux.
WIN_SQLITE_OPTIONS := -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS3 \
	-DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_UNLOCK_NOTIFY \
	-DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ALLOW_ROWID_IN_VIEW \
	-DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1 -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1 \
	-DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1 \
	-DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB \
	-DSQLITE_MAX_VARIABLE_NUMBER=250000

# after jansson, so that the two never add the deb-src entry at once
$(WIN_SQLITE): | $(WIN_JANSSON)
	$(call win_apt_source,sqlite3)
	cd $$(ls -d $(WIN_BUILD)/src/sqlite3-*/ | head -1) && ./configure --disable-tcl >/dev/null && \
		MAKEFLAGS= make sqlite3.c >/dev/null
	@mkdir -p $(WIN_SYSROOT)/include $(WIN_SYSROOT)/lib
	src=$$(ls -d $(WIN_BUILD)/src/sqlite3-*/ | head -1) && \
		$(WIN_CC) -O2 $(WIN_SQLITE_OPTIONS) -c -o $(WIN_BUILD)/src/sqlite3.o $$src/sqlite3.c && \
		cp $$src/sqlite3.h $$src/sqlite3ext.h $(WIN_SYSROOT)/include/
	rm -f $@
	$(WIN_AR) rcs $@ $(WIN_BUILD)/src/sqlite3.o

# The shared code compiles unchanged: what POSIX gives and mingw-w64 lacks
# is in common/windows/ (posix.h, given to every file); what only Linux has
# (the stored census's commands, DWARF symbols) is replaced by files under
# client/windows/ and trace/windows/ that say so; the client reaches the
# daemon over its named pipe (client/windows/control-pipe.c).
WIN_COMMON_SRCS := $(COMMON_SRCS) common/windows/posix.c
WIN_SCANNER_SRCS := scanner/region.c scanner/proc-parse.c scanner/classes.c scanner/runtimes.c scanner/classify.c \
	scanner/classify-shapes.c scanner/census.c scanner/census-json.c scanner/census-json-read.c scanner/gpu.c scanner/windows/gpu-none.c \
	scanner/win-census.c scanner/win-capture.c scanner/heap-trend.c scanner/region-events.c \
	scanner/windows/winscan.c scanner/windows/winscan-evidence.c scanner/windows/win-text.c
WIN_TRACE_SRCS := $(filter-out trace/trace-symbols.c,$(TRACE_SRCS)) trace/windows/trace-symbols.c
WIN_CLIENT_SRCS := client/census-print.c client/render-census.c client/heap-words.c client/table.c client/cmd-trace.c \
	client/cmd-diff.c client/render-region-changes.c client/ask.c client/answer.c \
	client/command-table.c client/windows/cmd-scan.c client/control-client.c client/windows/control-pipe.c \
	client/cmd-sql.c
# the daemon's commands, asked over the pipe as over the socket on Linux
# (top alone stays Linux's: its screen is curses')
WIN_CLIENT_SRCS += client/cmd-status.c client/render-status.c client/cmd-processes.c client/render-processes.c \
	client/cmd-history.c client/render-history.c client/cmd-report.c client/render-report.c client/report-trace.c \
	client/render-html.c client/render-html-charts.c client/chart.c client/style.c client/cmd-mark.c \
	client/mark-trace.c client/cmd-events.c client/cmd-metrics.c client/cmd-oom.c client/render-oom.c
WIN_SRCS := $(WIN_COMMON_SRCS) $(WIN_SCANNER_SRCS) $(WIN_TRACE_SRCS) $(WIN_CLIENT_SRCS) $(CLIENT_MAIN)
WIN_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_SRCS))
# the store, whole, as on Linux: a library, so that a program takes what it
# calls; SQLite's system error is Windows's there (schema/store-errno.h)
WIN_SCHEMA_SRCS := $(filter-out schema/store-errno.c,$(SCHEMA_SRCS)) schema/windows/store-errno.c
WIN_SCHEMA_LIB := $(WIN_BUILD)/lib/libschema.a

# the formats are checked by the Linux build of the same files: mingw's
# printf attribute is Microsoft's, which knows neither %zu nor %m
WIN_CFLAGS += -Wno-format -Wno-use-after-free -include common/windows/posix.h
INC_win_common := $(INC_common) -Icommon/windows/include
INC_win_scanner := $(INC_win_common) -Iscanner -Iscanner/windows
INC_win_trace := $(INC_win_common) -Itrace
INC_win_schema := $(INC_win_scanner) -Ischema
INC_win_client := $(INC_win_scanner) -Itrace -Iclient -Ischema

define win_objects
$(WIN_BUILD)/obj/$(1)/%.o: $(1)/%.c $(WIN_JANSSON) $(WIN_SQLITE)
	@mkdir -p $$(dir $$@)
	$$(WIN_CC) $$(WIN_CFLAGS) $$(INC_win_$(2)) -c -o $$@ $$<
endef
$(eval $(call win_objects,common,common))
$(eval $(call win_objects,scanner,scanner))
$(eval $(call win_objects,trace,trace))
$(eval $(call win_objects,schema,schema))
$(eval $(call win_objects,client,client))

$(WIN_BUILD)/obj/schema/migrations.o: $(BUILD)/schema/migrations.c $(WIN_SQLITE)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_schema) -c -o $@ $<

$(WIN_SCHEMA_LIB): $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_SCHEMA_SRCS)) $(WIN_BUILD)/obj/schema/migrations.o
	@mkdir -p $(dir $@)
	@rm -f $@
	$(WIN_AR) rcs $@ $^

$(WIN_BUILD)/ramwatch.exe: $(WIN_OBJS) $(WIN_SCHEMA_LIB)
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $(WIN_OBJS) $(WIN_SCHEMA_LIB) $(WIN_LIBS)

# the test programs (tests/windows/): the ground truth and the scanner
# reading itself, for residency
WIN_TEST_BINS := $(WIN_BUILD)/tests/holder.exe $(WIN_BUILD)/tests/selfscan.exe $(WIN_BUILD)/tests/storewrite.exe
WIN_SCANNER_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_COMMON_SRCS) $(WIN_SCANNER_SRCS))

$(WIN_BUILD)/tests/holder.exe: tests/windows/holder.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=gnu11 -O1 $(WARNINGS) -static -o $@ $<

$(WIN_BUILD)/tests/selfscan.exe: tests/windows/selfscan.c $(WIN_SCANNER_OBJS)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_scanner) $(WIN_LDFLAGS) -o $@ $(filter %.c %.o,$^) $(WIN_LIBS)

# the same rows written through the store on Windows and on Linux, for the
# other platform to read
$(WIN_BUILD)/tests/storewrite.exe: tests/windows/storewrite.c $(WIN_SCANNER_OBJS) $(WIN_SCHEMA_LIB)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_schema) $(WIN_LDFLAGS) -o $@ $< $(WIN_SCHEMA_LIB) $(WIN_SCANNER_OBJS) $(WIN_LIBS)

$(BUILD)/tests/storewrite: tests/windows/storewrite.c $(SCHEMA_LIB) $(SCANNER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_schema) $(LDFLAGS) -o $@ $< $(SCHEMA_LIB) $(SCANNER_LIB) $(COMMON_LIB) $(LIBS)

# The daemon's Windows primitives (daemon/windows/): every process at once
# from one NtQuerySystemInformation call (ntdll's), a process's owner, the
# machine's memory; procsnap.exe runs them and prints what they read.
WIN_DAEMON_SRCS := daemon/windows/win-procs.c daemon/windows/win-procs-live.c daemon/windows/win-sid.c \
	daemon/windows/win-owner.c daemon/windows/win-sysmem.c daemon/windows/win-sysmem-live.c
WIN_DAEMON_LIBS := -lntdll
INC_win_daemon := $(INC_win_scanner) -Ischema -Idaemon -Idaemon/windows
$(eval $(call win_objects,daemon,daemon))
WIN_DAEMON_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_COMMON_SRCS) $(WIN_DAEMON_SRCS) scanner/windows/win-text.c)
WIN_TEST_BINS += $(WIN_BUILD)/tests/procsnap.exe

$(WIN_BUILD)/tests/procsnap.exe: tests/windows/procsnap.c $(WIN_DAEMON_OBJS)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_daemon) $(WIN_LDFLAGS) -o $@ $(filter %.c %.o,$^) $(WIN_LIBS) $(WIN_DAEMON_LIBS)

# The daemon's infrastructure on Windows (daemon/windows/): the event loop
# over an I/O completion port, the service's start and states, the state
# directory's lock, the control pipe and its peers' accounts; and the
# control code shared with Linux (daemon/control*.c) over them.
# looptest.exe runs the loop for real; ctlserve.exe serves the control
# protocol on the pipe, in the console or as a service.
WIN_DAEMON_INFRA_SRCS := daemon/windows/event-loop.c daemon/windows/service.c daemon/windows/state-lock.c \
	daemon/windows/control-transport.c daemon/windows/control-peer.c
# the control server's side that faces the transport: listening, each
# connection's framing and buffers, the access rule (what answers the
# requests, the same on both platforms, is the core's: libdaemon.a below)
WIN_DAEMON_CONTROL_SRCS := daemon/control.c daemon/control-conn.c daemon/control-buffer.c daemon/control-access.c
# the known folders (%ProgramData%) are shell32's, freed by ole32's allocator
WIN_DAEMON_INFRA_LIBS := -lshell32 -lole32 -luuid
WIN_DAEMON_INFRA_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_COMMON_SRCS) $(WIN_DAEMON_INFRA_SRCS))
WIN_DAEMON_LOOP_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_COMMON_SRCS) daemon/windows/event-loop.c)
WIN_DAEMON_CONTROL_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_DAEMON_CONTROL_SRCS))
WIN_TEST_BINS += $(WIN_BUILD)/tests/looptest.exe $(WIN_BUILD)/tests/ctlserve.exe $(WIN_BUILD)/tests/pipepoke.exe

# a client of the pipe that misbehaves on purpose
$(WIN_BUILD)/tests/pipepoke.exe: tests/windows/pipepoke.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=gnu11 -O1 $(WARNINGS) -static -o $@ $<

$(WIN_BUILD)/tests/looptest.exe: tests/windows/looptest.c $(WIN_DAEMON_LOOP_OBJS)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_daemon) $(WIN_LDFLAGS) -o $@ $(filter %.c %.o,$^) $(WIN_LIBS)

$(WIN_BUILD)/tests/ctlserve.exe: tests/windows/ctlserve.c $(WIN_DAEMON_CONTROL_OBJS) \
		$(WIN_DAEMON_INFRA_OBJS) $(WIN_DAEMON_LIB) $(WIN_SCANNER_OBJS) $(WIN_SCHEMA_LIB)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_daemon) $(WIN_LDFLAGS) -o $@ $(filter %.c,$^) $(WIN_DAEMON_CONTROL_OBJS) \
		$(WIN_DAEMON_INFRA_SRCS:%.c=$(WIN_BUILD)/obj/%.o) $(WIN_DAEMON_LIB) $(WIN_SCHEMA_LIB) \
		$(sort $(WIN_SCANNER_OBJS)) $(WIN_LIBS) $(WIN_DAEMON_LIBS) $(WIN_DAEMON_INFRA_LIBS)

# The daemon's core for Windows (build/windows/lib/libdaemon.a): every file
# of daemon/ that is the same on both platforms, with Windows's side of the
# watching seams (discovery, the fast tier's reads, the census's reads, the
# machine's memory, following a process, no change watch) and the
# primitives under them, and the control requests' handlers.  The event
# loop, the service, the state lock, the control pipe and the control
# server's side that faces it (WIN_DAEMON_INFRA_SRCS,
# WIN_DAEMON_CONTROL_SRCS) are not in it: ramwatchd.exe brings them.
# corewatch.exe drives discovery, the fast tier, the census tier and the
# store cycle of this library for real (tests/windows/test_core.py).
WIN_DAEMON_CORE_SRCS := daemon/daemon-args.c daemon/config.c daemon/config-parse.c daemon/config-table.c daemon/config-values.c \
	daemon/selector.c daemon/sample.c daemon/schedule.c daemon/pidmap.c daemon/writer.c daemon/target.c \
	daemon/manager.c daemon/manager-interface.c daemon/watched.c daemon/fast-tier.c daemon/census-tier.c \
	daemon/census-take.c daemon/store-cycle.c daemon/store-aside.c daemon/timer.c daemon/daemon-clock.c \
	daemon/status-line.c daemon/export.c daemon/export-text.c daemon/gpu-watch.c \
	daemon/control-ops.c daemon/control-queries.c daemon/control-request.c daemon/control-answer.c \
	daemon/control-processes.c daemon/control-worker.c daemon/oom-kmsg.c daemon/windows/control-owner.c \
	daemon/windows/discover.c daemon/windows/target.c daemon/windows/fast-read.c daemon/windows/census-read.c \
	daemon/windows/sysmem.c daemon/windows/change-watch.c daemon/windows/malloc-tuning.c \
	daemon/windows/manager-oom.c $(WIN_DAEMON_SRCS)
WIN_DAEMON_LIB := $(WIN_BUILD)/lib/libdaemon.a
WIN_DAEMON_CORE_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_DAEMON_CORE_SRCS))
$(WIN_DAEMON_LIB): $(WIN_DAEMON_CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(WIN_AR) rcs $@ $^
WIN_TEST_BINS += $(WIN_BUILD)/tests/corewatch.exe

$(WIN_BUILD)/tests/corewatch.exe: tests/windows/corewatch.c $(WIN_DAEMON_LIB) $(WIN_SCHEMA_LIB) $(WIN_SCANNER_OBJS)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) $(INC_win_daemon) $(WIN_LDFLAGS) -o $@ $< $(WIN_DAEMON_LIB) $(WIN_SCHEMA_LIB) \
		$(WIN_SCANNER_OBJS) $(WIN_LIBS) $(WIN_DAEMON_LIBS)

# ramwatchd.exe: its Windows main (service.h's start: the service or the
# console) over the core, the infrastructure and the control server
WIN_DAEMON_MAIN := daemon/windows/ramwatchd.c
WIN_DAEMON_EXE_OBJS := $(patsubst %.c,$(WIN_BUILD)/obj/%.o,$(WIN_DAEMON_MAIN) $(WIN_DAEMON_INFRA_SRCS) \
	$(WIN_DAEMON_CONTROL_SRCS))
$(WIN_BUILD)/ramwatchd.exe: $(WIN_DAEMON_EXE_OBJS) $(WIN_DAEMON_LIB) $(WIN_SCHEMA_LIB) $(WIN_SCANNER_OBJS)
	$(WIN_CC) $(WIN_LDFLAGS) -o $@ $(WIN_DAEMON_EXE_OBJS) $(WIN_DAEMON_LIB) $(WIN_SCHEMA_LIB) \
		$(sort $(WIN_SCANNER_OBJS)) $(WIN_LIBS) $(WIN_DAEMON_LIBS) $(WIN_DAEMON_INFRA_LIBS)

# Wine runs with a prefix of its own under build/ (made on first use, in
# about 10 s); the tests start one wineserver for the module.
WIN_PREFIX := $(abspath $(WIN_BUILD))/wineprefix

$(WIN_BUILD)/bench/walk.exe: bench/windows/walk.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=gnu11 -O2 $(WARNINGS) -static -o $@ $<

$(WIN_BUILD)/bench/idle.exe: bench/windows/idle.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=gnu11 -O2 $(WARNINGS) -static -o $@ $<

# a census under Wine beside the bare VirtualQueryEx walk (BENCHMARKS.md); a
# snapshot of every process among 200 (bench/windows/snapshot-bench.py);
# the daemon's core watching 200 (bench/windows/core-bench.py); then
# ramwatchd.exe watching 200 beside ramwatchd watching 200 on Linux, in one
# run (bench/windows/daemon-bench.py, BENCH_WINDOWS_DAEMON_ARGS)
bench-windows: deps $(WIN_BUILD)/ramwatch.exe $(WIN_BUILD)/ramwatchd.exe $(WIN_BUILD)/tests/holder.exe \
		$(WIN_BUILD)/bench/walk.exe $(WIN_BUILD)/tests/procsnap.exe $(WIN_BUILD)/bench/idle.exe \
		$(WIN_BUILD)/tests/corewatch.exe $(BUILD)/ramwatchd $(BUILD)/bench/idle-target
	RAMWATCH_BUILD=$(abspath $(BUILD)) WINEPREFIX=$(WIN_PREFIX) $(PYTHON) bench/windows/census-bench.py
	RAMWATCH_BUILD=$(abspath $(BUILD)) WINEPREFIX=$(WIN_PREFIX) $(PYTHON) bench/windows/snapshot-bench.py
	RAMWATCH_BUILD=$(abspath $(BUILD)) WINEPREFIX=$(WIN_PREFIX) $(PYTHON) bench/windows/core-bench.py
	RAMWATCH_BUILD=$(abspath $(BUILD)) WINEPREFIX=$(WIN_PREFIX) $(PYTHON) bench/windows/daemon-bench.py \
		$(BENCH_WINDOWS_DAEMON_ARGS)

.PHONY: windows windows-jansson windows-sqlite check-windows bench-windows
windows-jansson: $(WIN_JANSSON)
windows-sqlite: $(WIN_SQLITE)
# what make windows needs, and only that (make deps installs them too);
# tcl makes SQLite's amalgamation
WINDOWS_DEB_PACKAGES := gcc-mingw-w64-x86-64 cmake dpkg-dev make tcl
windows:
	$(MAKE) deps DEB_PACKAGES="$(WINDOWS_DEB_PACKAGES)"
	$(MAKE) $(WIN_BUILD)/ramwatch.exe $(WIN_BUILD)/ramwatchd.exe

check-windows: $(WIN_BUILD)/ramwatch.exe $(WIN_BUILD)/ramwatchd.exe $(WIN_TEST_BINS) $(BUILD)/ramwatch $(BUILD)/tests/storewrite
	RAMWATCH_BUILD=$(abspath $(BUILD)) WINEPREFIX=$(WIN_PREFIX) $(PYTHON) -m pytest -q tests/windows

clean:
	rm -rf build

# ================================================================== dependencies

DEB_PACKAGES := gcc make pkg-config libjansson-dev libcmocka-dev python3 python3-pytest \
	clang libclang-rt-dev procps mandoc libdw-dev libelf-dev jq nodejs openjdk-17-jre-headless \
	libsqlite3-dev sqlite3 libsystemd-dev python3-numpy redis-server libjemalloc-dev libmimalloc-dev \
	libgoogle-perftools-dev faketime libbpf-dev bpftool \
	gcc-mingw-w64-x86-64 wine64 cmake dpkg-dev tcl \
	libncurses-dev tmux
# the completion tests drive a real zsh (tests/integration/test_completion.py)
DEB_PACKAGES += zsh
DEB_PACKAGES += chromium
DEB_PACKAGES += libunwind8
# for make deb, rpm, check-units and check-install (make deps-packaging)
# (the build's own packages too: debian/control's Build-Depends)
PACKAGING_DEB_PACKAGES := dpkg-dev debhelper lintian rpm systemd gcc make pkgconf libjansson-dev libsqlite3-dev \
	libsystemd-dev libdw-dev python3 sqlite3 procps libncurses-dev clang libbpf-dev bpftool

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "missing packages: $$missing (run as root: apt-get install $$missing)"; exit 1; fi; \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
