# cudaoverlap: the commands.
#   make demo   install what is missing (as root), build, run the main pipeline
#               (pipelines/demo.sh): the passport, the statistics, the
#               backend (on the CPU: why) and the wall time
#   make check  install what is missing (as root), build, run every test
#               (configured with -Dtests=enabled: a missing test dependency
#               fails configuration, naming its Debian package)
#               Without the CUDA toolkit (nvcc on PATH, in $CUDA_PATH/bin,
#               $CUDA_HOME/bin or /usr/local/cuda/bin) demo and check build
#               the CPU-only plugin (-Dcuda=disabled) and say so.
#   make check-nocuda  the CPU-only plugin (-Dcuda=disabled, no toolkit
#               file used) built in NOCUDA_BUILD (default build-nocuda),
#               and its tests run (those that need CUDA report themselves
#               skipped)
#   make docs-fields  rewrite the message field tables of docs/stats.md (and
#               the element's doc comment) from engine/co-stats-fields.c
#   make docs-reference  rewrite docs/reference.md (every element, pad
#               template, property and message field) from the registry
#   make install-check  meson install into a temporary prefix, then build
#               examples/stats-summary.c against the installed pkg-config
#               file and run it on the installed plugin (make check runs it
#               too)
#   make torture       the torture suite, longer (CO_TORTURE_SCALE=10)
#   make asan-check    the torture and video suites under ASan + UBSan
#   make bench  the bench gate's rows (docs/bench.md): prints the tables and
#               writes BENCH_CSV (default build/bench.csv); without a GPU,
#               the CPU backend's rows, small and short, which say so
#   make bench-compare  the bench again against the committed
#               BENCH_COMMITTED (default docs/perf/bench-h200.csv): fails
#               when a row's ratio to its ceiling is more than 5 % below it
#               in two consecutive runs
#   make deb    the Debian packages gstreamer1.0-cudaoverlap and
#               gstreamer1.0-cudaoverlap-dev (dpkg-buildpackage -b, debian/)
#               into DEB_OUT (default build-deb), then tools/dev/check-deb.sh
#               inspects them unpacked; DEB_CUDA_ARCHS=75 (or 80,90, ...)
#               builds fewer GPU architectures than the release's all-major,
#               DEB_BUILD_PROFILES=nocuda the CPU-only package
BUILD ?= build
NOCUDA_BUILD ?= build-nocuda
# nvcc where meson.build looks for it; none: the CPU-only plugin
NVCC := $(shell command -v nvcc 2>/dev/null || for d in "$$CUDA_PATH" \
	"$$CUDA_HOME" /usr/local/cuda; do [ -n "$$d" ] && [ -x "$$d/bin/nvcc" ] && \
	{ echo "$$d/bin/nvcc"; break; }; done)
CUDA_OPTION := $(if $(NVCC),,-Dcuda=disabled)

DEBS = gcc pkg-config meson ninja-build indent python3 \
       libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
       gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
       libjson-glib-dev
# for the Python examples' tests (skipped, with the reason, without them)
OPTIONAL_DEBS = python3-gst-1.0
# for make deb (besides the Build-Depends of debian/control, all in DEBS)
PACKAGING_DEBS = debhelper dpkg-dev

.PHONY: all deps build demo check check-nocuda install-check torture \
	asan-check format docs-fields docs-reference bench bench-compare clean
all: build

deps:
	@tools/dev/install-deps.sh $(DEBS) --optional $(OPTIONAL_DEBS)

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dfault-injection=true -Dtests=enabled $(CUDA_OPTION)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	@{ git rev-parse HEAD && git status --porcelain --untracked-files=no | \
	  sed 's/^/modified: /'; } > $(BUILD)/commit.txt 2>/dev/null || true

demo: build
	pipelines/demo.sh $(BUILD)

check: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

check-nocuda: deps
	[ -f $(NOCUDA_BUILD)/build.ninja ] || meson setup $(NOCUDA_BUILD) \
	  -Dcuda=disabled -Dfault-injection=true -Dtests=enabled
	ninja -C $(NOCUDA_BUILD)
	meson test -C $(NOCUDA_BUILD) --print-errorlogs --num-processes 2

docs-reference: build
	GST_PLUGIN_PATH=$(BUILD)/plugin GST_REGISTRY_1_0=$(BUILD)/reference-registry.bin \
	  GST_PLUGIN_SYSTEM_PATH_1_0=$$(pkg-config --variable=pluginsdir gstreamer-1.0) \
	  $(BUILD)/tools/dev/cudaoverlap-reference docs/reference.md

install-check: build
	tools/dev/install-check.sh . $(BUILD)/install-check

docs-fields: build
	$(BUILD)/tests/test-stats-fields --write docs/stats.md \
	  plugin/gstcudaoverlapfilter.c
# The torture suites (tests/test-torture-*.c) ten times longer: the test reads
# CO_TORTURE_SCALE (tests may read the environment; the plugin never does).
# CO_TEST_SEED=0x... repeats a run's random choices; GST_CHECKS=test_NAME
# runs one scenario; CO_TORTURE_GDB=1 prints every thread's stack when the
# watchdog fires.
TORTURE_SCALE ?= 10
torture: build
	CO_TORTURE_SCALE=$(TORTURE_SCALE) meson test -C $(BUILD) --print-errorlogs \
	  --timeout-multiplier $(TORTURE_SCALE) test-torture-held test-torture-state

# AddressSanitizer + UndefinedBehaviorSanitizer build in $(ASAN_BUILD):
#   meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
#     -Dfault-injection=true
# b_lundef=false: the plugin's shared module references the sanitizer
# runtime, which only the (instrumented) test program brings.  The
# plugin is loaded into an instrumented process, so the registry is scanned
# in-process (GST_REGISTRY_FORK=no: gst-plugin-scanner is not instrumented
# and would reject the module).  detect_leaks=0: GLib and GStreamer keep
# their type system and registry to the end on purpose; the suites' leaks
# tracer checks our objects instead.
ASAN_BUILD ?= build-asan
ASAN_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:print_summary=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GST_REGISTRY_FORK=no
asan-check: deps
	[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dfault-injection=true \
	  $(CUDA_OPTION)
	ninja -C $(ASAN_BUILD)
	$(ASAN_ENV) meson test -C $(ASAN_BUILD) --print-errorlogs \
	  --num-processes 1 --timeout-multiplier 4 test-torture-held \
	  test-torture-state test-video-ops test-video-memory test-video-stream \
	  test-video-lifecycle test-video-negotiation test-video-properties \
	  test-video-auto test-custom test-cudamemory-audio test-audio-ops \
	  test-audio-stream test-engine test-robustness

BENCH_CSV ?= $(BUILD)/bench.csv
BENCH_COMMITTED ?= docs/perf/bench-h200.csv
bench: build
	tools/bench/run-bench.sh $(BUILD) $(BENCH_CSV)

bench-compare: build
	tools/bench/compare.sh $(BUILD) $(BENCH_COMMITTED)

# make deb: nvcc from PATH, $CUDA_PATH, $CUDA_HOME or /usr/local/cuda (the
# toolkit is no Debian package here, so Build-Depends cannot name it).
# dpkg-buildpackage writes into the parent folder: the packages are moved to
# DEB_OUT and the tree is cleaned.  nocheck: make check runs the tests.
DEB_OUT ?= build-deb
DEB_CUDA_ARCHS ?= all-major
DEB_JOBS ?= auto
export DEB_CUDA_ARCHS
.PHONY: deb
deb:
	@set -e; for d in "$$CUDA_PATH" "$$CUDA_HOME" /usr/local/cuda; do \
	  if [ -n "$$d" ] && [ -x "$$d/bin/nvcc" ]; then PATH="$$PATH:$$d/bin"; fi; \
	done; export PATH; \
	case " $$DEB_BUILD_PROFILES " in \
	*" nocuda "*) tools/dev/install-deps.sh $(DEBS) $(PACKAGING_DEBS) \
	  2>/dev/null || true;; \
	*) command -v nvcc >/dev/null || { echo "make deb: nvcc (the CUDA" \
	  "toolkit) is not on PATH nor in \$$CUDA_PATH/bin, \$$CUDA_HOME/bin" \
	  "or /usr/local/cuda/bin: install the toolkit or point CUDA_PATH at" \
	  "it, or build the CPU-only package with DEB_BUILD_PROFILES=nocuda" >&2; \
	  exit 1; }; \
	  tools/dev/install-deps.sh $(DEBS) $(PACKAGING_DEBS);; \
	esac; \
	dpkg-checkbuilddeps; \
	rm -rf $(DEB_OUT); mkdir -p $(DEB_OUT); \
	v=$$(dpkg-parsechangelog -S Version); \
	a=$$(dpkg-architecture -q DEB_HOST_ARCH); \
	echo "dpkg-buildpackage -b (log: $(DEB_OUT)/build.log)"; \
	DEB_BUILD_OPTIONS="nocheck $$DEB_BUILD_OPTIONS" dpkg-buildpackage -b \
	  -us -uc -J$(DEB_JOBS) > $(DEB_OUT)/build.log 2>&1 || \
	  { tail -40 $(DEB_OUT)/build.log; exit 1; }; \
	for f in ../gstreamer1.0-cudaoverlap*_$${v}_$$a.deb \
	    ../gstreamer1.0-cudaoverlap_$${v}_$$a.buildinfo \
	    ../gstreamer1.0-cudaoverlap_$${v}_$$a.changes; do \
	  if [ -e "$$f" ]; then mv "$$f" $(DEB_OUT)/; fi; \
	done; \
	debian/rules clean > /dev/null
	tools/dev/check-deb.sh $(DEB_OUT)

format:
	tools/dev/gst-indent $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(NOCUDA_BUILD)
