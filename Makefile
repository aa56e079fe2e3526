# cudaoverlap: the commands.
#   make demo   install what is missing (as root), build, run the main pipeline
#   make check  install what is missing (as root), build, run every test
#   make docs-fields  rewrite the message field tables of docs/stats.md (and
#               the element's doc comment) from plugin/co-stats-fields.c
BUILD ?= build
export PATH := /usr/local/cuda/bin:$(PATH)

DEBS = gcc pkg-config meson ninja-build indent python3 \
       libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
       gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
       libjson-glib-dev

.PHONY: all deps build demo check format docs-fields clean
all: build

deps:
	@tools/install-deps.sh $(DEBS)

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dfault-injection=true

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	@{ git rev-parse HEAD && git status --porcelain --untracked-files=no | \
	  sed 's/^/modified: /'; } > $(BUILD)/commit.txt 2>/dev/null || true

demo: build
	pipelines/demo.sh $(BUILD)

check: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

docs-fields: build
	$(BUILD)/tests/test-stats-fields --write docs/stats.md \
	  elements/gstcudaoverlapfilter.c

format:
	tools/gst-indent $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)
