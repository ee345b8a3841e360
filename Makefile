# lazyimg: build, demo and tests.
# `make demo` and `make test` work on a fresh Debian 12 machine with the Swift 6.3
# toolchain on PATH; missing Debian packages are installed first (make deps).

# bash for pipefail in the test recipe.
SHELL    := /bin/bash
# Release by default: what the demo and the examples link and what `make install`
# ships. The XCTests build TEST_CONFIG (they import the core @testable).
CONFIG   ?= release
TEST_CONFIG := debug
SWIFT    ?= swift
ifeq ($(origin CXX),default)
CXX      := c++
endif
STRICT   := -Wall -Wextra -pedantic -Werror
PACKAGES := libcurl4-openssl-dev libturbojpeg0-dev libspng-dev pkg-config libwebp-dev libgif-dev libpng-dev valgrind
PACKAGES += libglib2.0-dev python3-pytest python3-numpy python3-pil
PACKAGES += libcjson-dev libmicrohttpd-dev nghttp2-server
PACKAGES += libgtk-4-dev xvfb xauth
# Python: venvs for the package checks, the C extension's headers, and the
# toolkits of the integration recipes (Qt offscreen, GTK 4 under Xvfb).
PACKAGES += python3-venv python3-dev python3-pyqt6 python3-gi gir1.2-gtk-4.0
PACKAGES += libavif-dev libde265-dev libheif-dev

# AVIF and HEIC decode when pkg-config finds libavif, and libde265 (the library's HEIC
# decoder) with libheif (whose encoder the tests make HEIC files with); a build without
# them works and refuses those formats (Package.swift reads these two). Expanded when
# each command runs, so after `make deps` has installed them; `make LAZYIMG_AVIF=0`
# leaves libavif out whatever is installed.
LAZYIMG_AVIF ?= $(shell pkg-config --exists libavif && echo 1 || echo 0)
LAZYIMG_HEIF ?= $(shell pkg-config --exists libde265 libheif && echo 1 || echo 0)
export LAZYIMG_AVIF LAZYIMG_HEIF

# Release builds link the Swift runtime into liblazyimg.so (only the lazyimg_*
# functions are exported, lazyimg.map), so the library needs no Swift toolchain
# where it runs and has no RUNPATH into one. Debug builds use the toolchain's.
SWIFT_FLAGS_release := -Xswiftc -static-stdlib
SWIFT_BUILD = $(SWIFT) build -c $(CONFIG) $(SWIFT_FLAGS_$(CONFIG))
# Where swift build puts liblazyimg.so.
BIN = $(shell $(SWIFT_BUILD) --show-bin-path)
# Where each kind of file lives (docs/contributing.md): the C checks and the loopback
# image server they, the examples' runs and the C benchmarks share; the C benchmarks;
# the demos, and the feed server and scroll-policy checks the demos share.
CHECKS_C := Tests/C
BENCH_C  := Tests/Benchmarks/C
DEMOS    := examples-c/demos
IMAGE_SERVER := $(CHECKS_C)/image_server.c
# The loopback server encodes its images with these.
SERVER_LIBS := -lturbojpeg -lspng -lwebp -lgif -lpthread

.PHONY: install uninstall check-install examples-bin run-examples check-python xctest check-test-subsets
.PHONY: all deps build demo demo-bin run-demo run-formats termlist-bin run-termlist memcheck-termlist gtk-feed-bin demo-gtk run-gtk-feed bench-animation bench-request bench-frame-gap bench-frame-split bench-frame-floor bench-code-pages bench-wake bench-decode check-code-layout bench-screenful bench-schedule bench-disk memcheck sanitize tsan \
        test check-header check-header-c check-header-cxx check-symbols clean

all: build

deps:
	@missing=""; \
	for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	    echo "deps: installing$$missing"; \
	    $$sudo apt-get update && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	fi

# SwiftPM writes liblazyimg.so only; programs linked to it ask for its SONAME,
# so add the liblazyimg.so.0 link, as ldconfig does on install.
build: deps
	$(SWIFT_BUILD) --product lazyimg
	ln -sf liblazyimg.so $(BIN)/liblazyimg.so.0

# The release build, whatever CONFIG says: what make install ships.
RELEASE_BIN = $(shell $(SWIFT) build -c release $(SWIFT_FLAGS_release) --show-bin-path)

# `make install PREFIX=/usr/local [DESTDIR=stage]`: the release library under its
# full version with the SONAME and development links, the header, and lazyimg.pc.
# Stripped (--strip-unneeded, as Debian strips shared libraries): 6 MB instead of
# 10, and without the DWARF 5 debug info that valgrind 3.19 cannot read.
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
version_part = $(shell sed -n 's/^\#define LAZYIMG_VERSION_$(1) \([0-9][0-9]*\).*/\1/p' include/lazyimg.h)
VERSION    := $(call version_part,MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
# The SONAME's number is the ABI version (Package.swift), not the major version.
LIB_FILE   := liblazyimg.so.0.$(call version_part,MINOR).$(call version_part,PATCH)
# The decoders this build links, for lazyimg.pc's Requires.private.
OPTIONAL_REQUIRES = $(if $(filter 1,$(LAZYIMG_AVIF)),libavif) $(if $(filter 1,$(LAZYIMG_HEIF)),libde265)
INSTALLED  := $(LIBDIR)/$(LIB_FILE) $(LIBDIR)/liblazyimg.so.0 $(LIBDIR)/liblazyimg.so \
              $(INCLUDEDIR)/lazyimg.h $(LIBDIR)/pkgconfig/lazyimg.pc

install:
	$(MAKE) --no-print-directory CONFIG=release build
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 0755 $(RELEASE_BIN)/liblazyimg.so $(DESTDIR)$(LIBDIR)/$(LIB_FILE)
	strip --strip-unneeded $(DESTDIR)$(LIBDIR)/$(LIB_FILE)
	ln -sf $(LIB_FILE) $(DESTDIR)$(LIBDIR)/liblazyimg.so.0
	ln -sf liblazyimg.so.0 $(DESTDIR)$(LIBDIR)/liblazyimg.so
	install -m 0644 include/lazyimg.h $(DESTDIR)$(INCLUDEDIR)/lazyimg.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@OPTIONAL_REQUIRES@|$(OPTIONAL_REQUIRES)|' \
	    lazyimg.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/lazyimg.pc
	@# Refresh the loader's cache when installing for real into a system directory.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then ldconfig || true; fi

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# make install into a temporary prefix, then what a user does with it: pkg-config,
# examples-c/minimal.c, run with the Swift toolchain hidden, valgrind; make uninstall.
check-install: deps
	scripts/check-install.sh

# The self-checking C programs (Tests/C), linked against the freshly built library
# (rpath to it): demo (the list) and formats (fill, premultiplied BGRA, encoded output).
demo-bin: build
	@mkdir -p build
	$(CC) -std=c99 $(STRICT) -Iinclude -I$(CHECKS_C) $(CHECKS_C)/demo.c $(IMAGE_SERVER) -o build/demo \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(SERVER_LIBS)
	$(CC) -std=c99 $(STRICT) -Iinclude -I$(CHECKS_C) $(CHECKS_C)/formats.c $(IMAGE_SERVER) \
	    -o build/formats -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(SERVER_LIBS)

# The examples a user copies (examples-c/*.c), shown in README.md and docs/, each run
# against the loopback image server by scripts/run-examples.sh.
GLIB_FLAGS = $(shell pkg-config --cflags --libs glib-2.0)
examples-bin: build
	@mkdir -p build
	$(CC) -std=c99 $(STRICT) -I$(CHECKS_C) $(CHECKS_C)/serve_images.c $(IMAGE_SERVER) \
	    -o build/serve_images $(SERVER_LIBS)
	$(CC) -std=c99 $(STRICT) -Iinclude examples-c/minimal.c -o build/minimal \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg -lspng
	$(CC) -std=c99 $(STRICT) -Iinclude examples-c/glib_loop.c -o build/glib_loop \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(GLIB_FLAGS)
	$(CC) -std=c99 $(STRICT) -Iinclude examples-c/thread_delivery.c -o build/thread_delivery \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg -lpthread

run-examples: examples-bin
	PYTHON=$(PYTHON) scripts/run-examples.sh build $(BIN)

# README.md and docs/: every excerpt is still part of its file (the files
# run-examples, run-termlist and check-python run), every link to a file resolves.
.PHONY: check-docs
check-docs:
	$(PYTHON) scripts/check-docs.py

# The Python binding's pytest tests from the source tree, on the library just
# built, through ctypes alone (the C extension's run is check-python-wheel's).
# Debian's python3 and python3-pytest (make deps), whatever python3 comes first
# on PATH.
PYTHON ?= /usr/bin/python3
check-python: build
	LAZYIMG_LIBRARY=$(BIN)/liblazyimg.so.0 LAZYIMG_PURE_PYTHON=1 LAZYIMG_EXPECT_SPEEDUPS=0 \
	    $(PYTHON) -m pytest -q -p no:cacheprovider bindings/python/tests; \
	    status=$$?; if [ $$status -eq 5 ]; then echo "check-python: pytest collected no tests"; fi; exit $$status

# The Python package. Venvs live under build/python (made from $(PYTHON)); what
# they need from PyPI is pinned in bindings/python/requirements-*.txt and
# comes from pip's cache after the first run.
.PHONY: wheel check-python-wheel check-python-install check-python-types check-python-recipes bench-python
PY_VENVS := build/python
# venv DIR [--system-site-packages] / requirements: a venv made once per
# requirements file (remade when the file changes).
$(PY_VENVS)/tools/ready: bindings/python/requirements-wheel.txt
	$(PYTHON) -m venv --clear $(@D)
	$(@D)/bin/pip install -q -r $<
	touch $@
$(PY_VENVS)/recipes/ready: bindings/python/requirements-recipes.txt
	$(PYTHON) -m venv --clear --system-site-packages $(@D)
	PYGOBJECT_STUB_CONFIG=Gtk4,Gdk4 $(@D)/bin/pip install -q -r $<
	touch $@

# `make wheel`: build/wheel/lazyimg-VERSION-cp311-abi3-manylinux_*.whl, the
# package with its C extension and the release liblazyimg.so.0 (stripped, as
# make install ships it), repaired by auditwheel: it vendors libcurl,
# TurboJPEG, libspng, libwebp, giflib and what they link into lazyimg.libs/
# and tags the wheel with the oldest glibc they allow. Built from a copy of
# the package (build/wheel/src), so the tree never holds a library copy.
WHEEL_SRC := build/wheel/src
wheel: deps $(PY_VENVS)/tools/ready
	$(MAKE) --no-print-directory CONFIG=release build
	rm -rf build/wheel
	mkdir -p $(WHEEL_SRC)/lazyimg
	cp bindings/python/pyproject.toml bindings/python/setup.py bindings/python/README.md $(WHEEL_SRC)/
	cp bindings/python/lazyimg/*.py bindings/python/lazyimg/*.c bindings/python/lazyimg/py.typed $(WHEEL_SRC)/lazyimg/
	install -m 0755 $(RELEASE_BIN)/liblazyimg.so $(WHEEL_SRC)/lazyimg/liblazyimg.so.0
	strip --strip-unneeded $(WHEEL_SRC)/lazyimg/liblazyimg.so.0
	LAZYIMG_REQUIRE_SPEEDUPS=1 $(PY_VENVS)/tools/bin/pip wheel -q --no-deps -w build/wheel/raw $(WHEEL_SRC)
	PATH=$(CURDIR)/$(PY_VENVS)/tools/bin:$$PATH $(PY_VENVS)/tools/bin/auditwheel repair -w build/wheel \
	    build/wheel/raw/lazyimg-*.whl 2>&1 | grep -v '^INFO:'
	@ls build/wheel/lazyimg-*.whl

# The wheel in a fresh venv, with the toolchain and the system's copies of what
# it vendors hidden, and no library path in the environment (see the script).
check-python-wheel: wheel
	PYTHON=$(PYTHON) scripts/check-python-wheel.sh build/wheel/lazyimg-*.whl

# pip install ./bindings/python (with and without a compiler) and pip install -e.
check-python-install: build
	PYTHON=$(PYTHON) scripts/check-python-install.sh $(BIN)/liblazyimg.so.0

# mypy --strict on the package, its examples and the integration recipes.
PY_TYPED := lazyimg example.py session_example.py examples
check-python-types: $(PY_VENVS)/recipes/ready
	cd bindings/python && ../../$(PY_VENVS)/recipes/bin/mypy --config-file pyproject.toml \
	    --cache-dir ../../$(PY_VENVS)/mypy-cache --exclude 'examples/tests/' $(PY_TYPED)

# The integration recipes (bindings/python/examples: Qt offscreen, GTK 4 under
# Xvfb, Textual's test pilot, a notebook run by nbclient), each against a
# loopback server, with the package installed from the tree.
check-python-recipes: build $(PY_VENVS)/recipes/ready
	$(PY_VENVS)/recipes/bin/pip install -q --force-reinstall --no-deps ./bindings/python
	rm -rf bindings/python/build bindings/python/*.egg-info
	LAZYIMG_LIBRARY=$(BIN)/liblazyimg.so.0 LAZYIMG_TEST_INSTALLED=1 LAZYIMG_EXPECT_SPEEDUPS=1 \
	    $(PY_VENVS)/recipes/bin/python -m pytest -q -p no:cacheprovider bindings/python/examples/tests

# What a memory hit and the per-frame calls cost from Python, against a dict
# lookup of a PIL image, through the C extension and through ctypes (prints a
# table; release build, the package installed from the tree).
bench-python: $(PY_VENVS)/recipes/ready
	$(MAKE) --no-print-directory CONFIG=release build
	$(PY_VENVS)/recipes/bin/pip install -q --force-reinstall --no-deps ./bindings/python
	rm -rf bindings/python/build bindings/python/*.egg-info
	cd build && LAZYIMG_LIBRARY=$(RELEASE_BIN)/liblazyimg.so.0 ../$(PY_VENVS)/recipes/bin/python \
	    ../Tests/Benchmarks/python/bench_memory_hit.py

run-demo: demo-bin
	./build/demo

run-formats: demo-bin
	./build/formats

# The README's "run" command: the terminal list, interactive on a terminal, else
# its scripted run (which checks itself and writes a contact sheet).
demo: termlist-bin
	@if [ -t 1 ] && [ -t 0 ]; then ./build/termlist --latency-ms 150; \
	else ./build/termlist --script builtin --sheet build/termlist-sheet.png; fi

# The terminal list (examples-c/demos/termlist) and what the feed demos share
# (examples-c/demos/feed): the loopback feed server, on libmicrohttpd, the paged
# rows, the options, the scripted run's scroll-policy checks, the BlurHash
# encoder the server's placeholders come from, and the animations it serves.
FEED_SRC      := $(addprefix $(DEMOS)/feed/,feed_server.c feed_pager.c feed_checks.c scroll_windows.c decay_fit.c feed_options.c blurhash_encode.c \
                   animation_encoder.c animation_watch.c)
TERMLIST_SRC  := $(DEMOS)/termlist/termlist.c $(FEED_SRC)
TERMLIST_LIBS := -lmicrohttpd -lcjson -lspng -lturbojpeg -lgif -lwebp -lpthread -lm
termlist-bin: build
	@mkdir -p build
	$(CC) -std=c99 $(STRICT) -Iinclude -I$(DEMOS)/feed $(TERMLIST_SRC) -o build/termlist \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(TERMLIST_LIBS)

# The scripted scroll: while moving, downloads only for the rows the scroll policy
# allows; a URL downloaded again only after a cancel; one event per ticket, the
# pages arrived, a sheet with no blank thumbnail.
run-termlist: termlist-bin
	./build/termlist --script builtin --sheet build/termlist-sheet.png

# A short scripted run under valgrind, on generated images (no PNG decoding in the
# server), since debug Swift under valgrind is slow; valgrind runs one thread at a
# time, hence the long transfer timeout and waits, and the long time a request may
# take to reach the server after the loader started it.
memcheck-termlist: termlist-bin
	scripts/memcheck.sh $(BIN) ./build/termlist --script $(DEMOS)/termlist/memcheck.script \
	    --photos /nonexistent --timeout-ms 300000 --wait-ms 600000 --grace-ms 5000 --sheet build/termlist-memcheck.png

# The GTK 4 photo feed (examples-c/demos/gtk-feed) over the terminal list's feed
# server and checks. GTK's headers go in as system headers (-isystem): they
# redefine typedefs, which C99 -pedantic rejects; our own code keeps every warning.
GTK_FEED_SRC  := $(wildcard $(DEMOS)/gtk-feed/*.c) $(FEED_SRC)
GTK_CFLAGS     = $(shell pkg-config --cflags gtk4 | sed 's/-I/-isystem /g')
GTK_LIBS       = $(shell pkg-config --libs gtk4)
gtk-feed-bin: build
	@mkdir -p build
	$(CC) -std=c99 $(STRICT) -Iinclude -I$(DEMOS)/feed -I$(DEMOS)/gtk-feed $(GTK_CFLAGS) $(GTK_FEED_SRC) \
	    -o build/gtk-feed -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(TERMLIST_LIBS) $(GTK_LIBS)

# The window, on the display this runs on.
demo-gtk: gtk-feed-bin
	./build/gtk-feed --latency-ms 150

# The scripted fling on a display of its own (Xvfb) with the cairo renderer:
# the terminal list's checks, the thumbnails on screen not blank in the
# screenshot, every image a texture held released. GTK_A11Y=none: no session
# bus to reach. docs/gtk-feed.png is this screenshot.
GTK_FEED_SHOT ?= build/gtk-feed.png
run-gtk-feed: gtk-feed-bin
	GSK_RENDERER=cairo GTK_A11Y=none scripts/with-xvfb.sh ./build/gtk-feed --script builtin --screenshot $(GTK_FEED_SHOT)

# What the per-frame calls cost on the host thread (release build; prints a table).
bench-request:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -I$(CHECKS_C) $(BENCH_C)/bench_request.c $(BENCH_C)/bench_list.c $(IMAGE_SERVER) \
	    -o build/bench_request -L$(RELEASE_BIN) -Wl,-rpath,$(RELEASE_BIN) -llazyimg $(SERVER_LIBS)
	./build/bench_request

# What each per-frame call costs after a 60 Hz frame's gap, against the same call
# made again at once and a mutex, an empty call and host code in the same run.
bench-frame-gap:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -I$(CHECKS_C) $(BENCH_C)/bench_frame_gap.c $(BENCH_C)/bench_list.c $(IMAGE_SERVER) \
	    -o build/bench_frame_gap -L$(RELEASE_BIN) -Wl,-rpath,$(RELEASE_BIN) -llazyimg $(SERVER_LIBS)
	./build/bench_frame_gap

# What a frame pays per code page it touches after a 60 Hz frame's gap: the same
# tiny calls on a page each and packed on one (why ui-thread.order exists).
bench-code-pages:
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) $(BENCH_C)/bench_code_pages.c -o build/bench_code_pages
	./build/bench_code_pages

# What the UI thread pays to wake a sleeping thread after a frame's gap: the eventfd
# write lazyimg makes, a raw futex wake and LazyTable's pthread_cond_signal, in turn
# (prints tables; about 25 s). A 60 Hz pace, about 30 s:
# make bench-wake BENCH_WAKE_ARGS="--wakes 600 --gap-ms 16".
bench-wake:
	@mkdir -p build
	$(CC) -std=c11 -O2 $(STRICT) $(BENCH_C)/bench_wake.c -o build/bench_wake -lpthread
	./build/bench_wake $(BENCH_WAKE_ARGS)

# How long 10 rows take to land from a 40 ms loopback server under the old and new
# connection defaults (release build; prints a table).
bench-screenful: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS_release) --product lazyimg-bench-screenful
	$(RELEASE_BIN)/lazyimg-bench-screenful

# What the scroll-aware scheduler costs per frame during replayed flings, whether
# the resting rows are ready at rest, and calls with 200k requests waiting.
bench-schedule:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -I$(CHECKS_C) $(BENCH_C)/bench_schedule.c $(BENCH_C)/bench_list.c $(IMAGE_SERVER) \
	    -o build/bench_schedule -L$(RELEASE_BIN) \
	    -Wl,-rpath,$(RELEASE_BIN) -llazyimg $(SERVER_LIBS) -lm
	./build/bench_schedule

# What the disk cache buys: warm start, cold from disk and disk-hit throughput
# against the network and a read() + TurboJPEG floor (release build; prints a table).
bench-disk:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -I$(CHECKS_C) $(BENCH_C)/bench_disk.c $(IMAGE_SERVER) \
	    -o build/bench_disk -L$(RELEASE_BIN) \
	    -Wl,-rpath,$(RELEASE_BIN) -llazyimg $(SERVER_LIBS)
	./build/bench_disk

# A screen of 12 animations (GIF, then WebP) playing for 10 s: peak RSS and CPU per
# second against decoding every frame up front and a streaming full-canvas decoder,
# each in a process of its own (release build; prints tables; about 3 minutes).
bench-animation:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -I$(DEMOS)/feed $(BENCH_C)/bench_animation.c $(DEMOS)/feed/animation_encoder.c \
	    -o build/bench_animation -L$(RELEASE_BIN) -Wl,-rpath,$(RELEASE_BIN) -llazyimg -lgif -lwebpdemux -lwebp -lm
	./build/bench_animation

# Thumbnails per second against Pillow and djpeg on the Kodak photos (needs
# ../shared/corpus; installs libjpeg-turbo-progs and a Pillow virtualenv).
bench-decode:
	Tests/Benchmarks/bench-decode.sh

# The reference decoders of the placeholder hashes, in a virtualenv from PyPI
# (scripts/placeholder-oracles.txt), for the fixtures and the benchmark.
PLACEHOLDER_VENV := build/placeholder-venv
$(PLACEHOLDER_VENV)/installed: scripts/placeholder-oracles.txt
	rm -rf $(PLACEHOLDER_VENV) && python3 -m venv $(PLACEHOLDER_VENV)
	$(PLACEHOLDER_VENV)/bin/pip install -q -r scripts/placeholder-oracles.txt
	touch $@

# Writes Tests/Fixtures/placeholders from the reference decoders (needs ../shared/corpus).
.PHONY: placeholder-fixtures check-placeholder-fixtures
placeholder-fixtures: $(PLACEHOLDER_VENV)/installed
	$(PLACEHOLDER_VENV)/bin/python scripts/placeholder_fixtures.py $(CORPUS)/photos Tests/Fixtures/placeholders

# The stored fixtures are what the reference decoders give today: written again into
# build/ and compared.
check-placeholder-fixtures: $(PLACEHOLDER_VENV)/installed
	@if [ ! -d $(CORPUS)/photos ]; then echo "check-placeholder-fixtures: skipped, no photos at $(CORPUS)/photos"; exit 0; fi; \
	rm -rf build/placeholder-fixtures && mkdir -p build/placeholder-fixtures && \
	$(PLACEHOLDER_VENV)/bin/python scripts/placeholder_fixtures.py $(CORPUS)/photos build/placeholder-fixtures && \
	diff -r Tests/Fixtures/placeholders build/placeholder-fixtures && \
	echo "check-placeholder-fixtures: the fixtures are the reference decoders' output"

# Microseconds per BlurHash and ThumbHash render against the reference decoders
# (Python, C and Rust, from PyPI into build/), with ratios; prints two tables.
.PHONY: bench-placeholder
bench-placeholder: deps
	Tests/Benchmarks/bench-placeholder.sh

# Scroll traces replayed at 60 Hz against lazyimg (through its C API) and three
# baseline loaders on the same transport and decoder, over a loopback site with a
# 40 ms delay and a 200 Mbit/s cap (release build; prints tables; about 15 minutes).
# Options: make bench-scroll BENCH_SCROLL_ARGS="--traces slow-drag --rounds 3".
.PHONY: bench-scroll
bench-scroll: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS_release) --product lazyimg-bench-scroll
	$(RELEASE_BIN)/lazyimg-bench-scroll --photos $(CORPUS)/photos $(BENCH_SCROLL_ARGS)

# Where a moving frame's time goes: the scroll benchmark with its lazyimg host
# reading the time-stamp counter between its calls, in a build of its own (the
# default build's frame carries no extra reads). Prints a table per loader, then
# its slowest 1% of frames (at most 40) with each part, the scroll states, misses,
# events and the thread's involuntary switches and page faults since the frame
# before, to tell a frame's own work from the OS stalling the thread.
FRAME_SPLIT_ARGS = --traces read-fling-read,fling-reverse,long-session --loaders lazyimg,lazyimg-no-target,LazyTable \
	--families none --slow-link-traces none --no-hit-cost
bench-frame-split: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS_release) --scratch-path .build/frame-split -Xcc -DLAZYIMG_HOST_SPLIT \
	    --product lazyimg-bench-scroll
	.build/frame-split/release/lazyimg-bench-scroll --photos $(CORPUS)/photos $(FRAME_SPLIT_ARGS)

# The floor under a frame's calls: the scroll benchmark with lazyimg's frame calls
# doing no work (ImageLoader+FrameFloor.swift), in a build of its own, to run
# beside bench-scroll's. FRAME_FLOOR_VIEWS=1 keeps the view calls' real work and
# stands in for the requests only.
FRAME_FLOOR_ARGS = --traces fling-reverse,uikit-snap:555,read-fling-read --loaders lazyimg-no-target,LazyTable \
	--slow-link-traces none --no-hit-cost --by-motion
FRAME_FLOOR_VIEWS ?= 0
FRAME_FLOOR_FLAGS = -Xswiftc -DLAZYIMG_FRAME_FLOOR $(if $(filter 1,$(FRAME_FLOOR_VIEWS)),-Xswiftc -DLAZYIMG_FRAME_FLOOR_VIEWS)
bench-frame-floor: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS_release) --scratch-path .build/frame-floor-$(FRAME_FLOOR_VIEWS) \
	    $(FRAME_FLOOR_FLAGS) --product lazyimg-bench-scroll
	.build/frame-floor-$(FRAME_FLOOR_VIEWS)/release/lazyimg-bench-scroll --photos $(CORPUS)/photos $(FRAME_FLOOR_ARGS)

# Regenerates Sources/LazyImgABI/ui-thread.order, the functions a UI thread runs
# each frame, which release builds lay side by side: the scroll benchmark's frames
# under callgrind, one trace and loader at a time, a profile per frame of the UI
# thread (about 5 minutes). Run
# it when the code the lazyimg_* calls run has changed much; a stale list only
# leaves the new functions where they were.
.PHONY: ui-thread-order
UI_ORDER_TRACES := fling-reverse long-session read-fling-read slow-drag jump-end
ui-thread-order: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS_release) --product lazyimg-bench-scroll
	@profiles=$$(mktemp -d) && trap 'rm -rf "$$profiles"' EXIT && \
	cp $(RELEASE_BIN)/lazyimg-bench-scroll "$$profiles"/ && strip --strip-debug "$$profiles"/lazyimg-bench-scroll && \
	for loader in lazyimg lazyimg-no-target; do for trace in $(UI_ORDER_TRACES); do \
	    echo "callgrind: $$trace, $$loader"; \
	    valgrind --tool=callgrind --demangle=no --separate-threads=yes --toggle-collect=lazyimg_host_frame \
	        --dump-after=lazyimg_host_frame \
	        --callgrind-out-file="$$profiles/$$trace.$$loader.out" "$$profiles"/lazyimg-bench-scroll \
	        --photos $(CORPUS)/photos --traces $$trace --loaders $$loader --families none \
	        --slow-link-traces none --no-hit-cost >/dev/null 2>&1 || exit 1; \
	done; done && \
	python3 scripts/ui-thread-order.py Sources/LazyImgABI/ui-thread.order "$$profiles"/*.out.* && \
	rm -f $(RELEASE_BIN)/liblazyimg.so $(RELEASE_BIN)/lazyimg-bench-scroll # SwiftPM relinks for sources only

check-header: check-header-c check-header-cxx

check-header-c:
	$(CC) -std=c99 $(STRICT) -fsyntax-only -Iinclude $(CHECKS_C)/header-check.c

check-header-cxx:
	$(CXX) -std=c++11 $(STRICT) -fsyntax-only -Iinclude $(CHECKS_C)/header-check.cpp

# The C examples again under valgrind: no invalid access, no leak.
memcheck: demo-bin
	scripts/memcheck.sh $(BIN) ./build/demo
	scripts/memcheck.sh $(BIN) ./build/formats

# The C programs under AddressSanitizer with leak checking: the library built with
# --sanitize=address, the programs by the Swift toolchain's clang so that both use
# its one ASan runtime (gcc's libasan would be a second, conflicting one). Runs
# beside memcheck: valgrind also sees reads of uninitialised memory.
.PHONY: asan-c
ASAN_BIN = $(CURDIR)/.build/asan/debug
ASAN_CC = $(dir $(shell command -v $(SWIFT)))clang
asan-c: deps
	$(SWIFT) build --sanitize=address --scratch-path .build/asan --product lazyimg
	ln -sf liblazyimg.so $(ASAN_BIN)/liblazyimg.so.0
	@mkdir -p build
	for program in demo formats; do \
	    $(ASAN_CC) -std=c99 $(STRICT) -g -fsanitize=address -Iinclude -I$(CHECKS_C) $(CHECKS_C)/$$program.c \
	        $(IMAGE_SERVER) -o build/$$program-asan -L$(ASAN_BIN) -Wl,-rpath,$(ASAN_BIN) -llazyimg \
	        $(SERVER_LIBS) 2>build/$$program-asan.log || { cat build/$$program-asan.log; exit 1; }; \
	    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	        ./build/$$program-asan >/dev/null || exit 1; \
	    echo "asan-c: no invalid access, no leak: build/$$program-asan"; \
	done

# The corpus tests (PngSuite, png-corrupt/, bad/, ...) again under AddressSanitizer,
# built into their own scratch path: an invalid access aborts the run, and any leak
# LeakSanitizer finds fails it, except the Swift runtime's and XCTest's own blocks
# listed in scripts/lsan.supp. Passes with a message when ../shared/corpus is absent.
CORPUS := ../shared/corpus
# gold prints "Cannot export local symbol" thousands of times while linking the
# instrumented test builds (the version script, lazyimg.map, makes every
# non-lazyimg_ symbol local); harmless. Only that exact line is dropped.
DROP_GOLD_NOISE := { grep -vF 'ld.gold: warning: Cannot export local symbol' || true; }
sanitize: deps
	@if [ ! -d $(CORPUS) ]; then echo "sanitize: skipped, no test corpus at $(CORPUS)"; exit 0; fi; \
	set -o pipefail; \
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan -Xswiftc -DLAZYIMG_SUBSET -Xswiftc -DLAZYIMG_ASAN_SUBSET \
	    2>&1 | $(DROP_GOLD_NOISE) && \
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	    .build/asan/debug/lazyimgPackageTests.xctest

# The whole XCTest suite under ThreadSanitizer: any data race fails the run.
# LAZYIMG_TSAN=1 makes the tests whose figures would measure the sanitizer itself
# skip with that reason. With this toolchain (Swift 6.3.1) a sanitized XCTest
# bundle of more than about 23 test classes crashes before any test runs, in the
# Swift runtime's type-name cache (XCTest names every class; TSan reports a CHECK
# in its allocator, ASan a bad free), whether through `swift test` or not. So the
# suite runs as groups of at most 20 classes, each its own build, and the ASan
# corpus run builds its own subset. Each test file names the subsets it belongs
# to in an #if at its top, `#if !LAZYIMG_SUBSET || LAZYIMG_TSAN_SUBSET_2`: a plain
# build defines no LAZYIMG_SUBSET and compiles every file; a subset build defines
# it and its group's name. The test binaries run directly. A new test file needs
# its #if too (`make check-test-subsets` names the ones that lack it). The last
# line adds the groups up.
TSAN_GROUPS := LAZYIMG_TSAN_SUBSET_1 LAZYIMG_TSAN_SUBSET_2 LAZYIMG_TSAN_SUBSET_3 LAZYIMG_TSAN_SUBSET_4 LAZYIMG_TSAN_SUBSET_5
check-test-subsets:
	scripts/check-test-subsets.sh $(TSAN_GROUPS)

tsan: deps
	@mkdir -p build; set -o pipefail; executed=0; skipped=0; \
	for group in $(TSAN_GROUPS); do \
	    echo "tsan: $$group"; \
	    $(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan-$$group -Xswiftc -DLAZYIMG_SUBSET -Xswiftc -D$$group \
	        2>&1 | $(DROP_GOLD_NOISE) || exit 1; \
	    LAZYIMG_TSAN=1 TSAN_OPTIONS=halt_on_error=1 .build/tsan-$$group/debug/lazyimgPackageTests.xctest \
	        >build/tsan-$$group.log 2>&1; status=$$?; cat build/tsan-$$group.log; [ $$status -eq 0 ] || exit $$status; \
	    summary=$$(grep -E '^[[:space:]]*Executed [0-9]+ tests?' build/tsan-$$group.log | tail -n 1); \
	    executed=$$((executed + $$(echo "$$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/'))); \
	    skipped=$$((skipped + $$(echo "$$summary" | grep -oE '[0-9]+ tests? skipped' | grep -oE '^[0-9]+' || echo 0))); \
	done; \
	printf "All groups:\n\t Executed %d tests, with %d tests skipped and 0 failures (0 unexpected)\n" $$executed $$skipped

# libFuzzer on each decoder, on animation frames, on the response path and on the
# disk cache's entry and journal parsers (Tests/Fuzz), seeded from ../shared/corpus,
# from the cache files make xctest leaves in build/fuzz-seeds/, and (AVIF and HEIC)
# from files the test encoders make, FUZZ_SECONDS per target: about two minutes for
# all ten. For a
# longer run: make fuzz FUZZ_SECONDS=600. Prints files seeded and executions per
# target; a crash fails the run and leaves its input in build/fuzz/.
.PHONY: fuzz
FUZZ_SECONDS ?= 12
# The AVIF and HEIC decoders, when this build has them; seeded from generated files.
FUZZ_OPTIONAL = $(if $(filter 1,$(LAZYIMG_AVIF)),avif) $(if $(filter 1,$(LAZYIMG_HEIF)),heif)
fuzz: deps
	@if [ ! -d $(CORPUS) ]; then echo "fuzz: skipped, no test corpus at $(CORPUS)"; exit 0; fi; \
	$(SWIFT) build -c release --scratch-path .build/fuzz --product lazyimg-fuzz \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLAZYIMG_FUZZING && \
	scripts/fuzz.sh .build/fuzz/release/lazyimg-fuzz $(CORPUS) $(FUZZ_SECONDS) jpeg png webp gif frames response disk-entry disk-journal $(FUZZ_OPTIONAL)

check-symbols: build
	scripts/check-symbols.sh $(BIN)/liblazyimg.so

# The functions a frame runs lie side by side in the release library
# (Sources/LazyImgABI/ui-thread.order).
check-code-layout:
	$(MAKE) --no-print-directory CONFIG=release build
	python3 scripts/check-code-layout.py $(RELEASE_BIN)/liblazyimg.so

# A build without libavif and libde265, as on a machine that lacks them: it builds,
# its liblazyimg.so needs neither (nor libheif), and its tests pass: AVIF and HEIF
# files are refused by name, Accept leaves them out, the other formats decode as before.
.PHONY: check-without-avif-heif
WITHOUT_AVIF_HEIF := LAZYIMG_AVIF=0 LAZYIMG_HEIF=0
WITHOUT_SCRATCH := .build/without-avif-heif
WITHOUT_TESTS := ImageFormatNegotiationTests|HEIFItemsTests|Decoding(Format|JPEG|PNG|WebP|GIF)Tests|OutputOptionsTests
check-without-avif-heif: deps
	$(WITHOUT_AVIF_HEIF) $(SWIFT) build -c $(TEST_CONFIG) --build-tests --scratch-path $(WITHOUT_SCRATCH)
	@if readelf -d $(WITHOUT_SCRATCH)/$(TEST_CONFIG)/liblazyimg.so | grep NEEDED | grep -E 'libavif|libheif|libde265'; then \
	    echo "check-without-avif-heif: the library still needs libavif, libde265 or libheif"; exit 1; fi
	$(WITHOUT_AVIF_HEIF) $(SWIFT) test -c $(TEST_CONFIG) --skip-build --scratch-path $(WITHOUT_SCRATCH) \
	    --disable-swift-testing --filter '$(WITHOUT_TESTS)'

# The test command. Each step's output goes to build/test/STEP.log and one line is
# printed per step (scripts/run-step.sh): XCTests first (a failure stops there),
# then the C-side checks, the installed library, the examples, the Python binding,
# valgrind and the sanitizer runs.
C_CHECKS := check-header-c check-header-cxx check-test-subsets check-placeholder-fixtures check-symbols check-code-layout check-without-avif-heif check-install run-demo run-formats run-termlist run-gtk-feed run-examples check-docs check-python \
            check-python-install check-python-wheel check-python-types check-python-recipes \
            memcheck memcheck-termlist asan-c sanitize tsan fuzz
# The last line counts every test a runner reported (XCTest, pytest; the
# sanitizer runs count their tests again) plus one for each other check.
TEST_TOTAL = awk '{ passed += $$1; failed += $$2 } END { printf "total: %d passed, %d failed\n", passed, failed }' build/test/counts
test: deps
	@rm -rf build/test
	@scripts/run-step.sh xctest $(MAKE) --no-print-directory xctest || { $(TEST_TOTAL); exit 1; }
	@failed=0; \
	for check in $(C_CHECKS); do scripts/run-step.sh $$check $(MAKE) --no-print-directory $$check || failed=1; done; \
	$(TEST_TOTAL); [ $$failed -eq 0 ]

# The XCTests of the core and the C ABI, in the debug build.
xctest: deps
	$(SWIFT) build -c $(TEST_CONFIG) --build-tests
	$(SWIFT) test -c $(TEST_CONFIG) --skip-build --disable-swift-testing

clean:
	rm -rf .build build

# What one decode of the worst file a server can craft holds at its peak, per format
# (issue 17): each file decoded into a 64 px box in a process of its own, at the
# default max_decode_bytes (64 MiB), in a release build of the tests (about 5
# minutes the first time). Prints the table of the formats docs page; then, for AVIF
# and HEIC, each kind's peak beside the estimate max_decode_bytes is checked with.
.PHONY: peak-memory
peak-memory: deps
	$(SWIFT) build -c release --build-tests --scratch-path .build/peak -Xswiftc -enable-testing
	@echo "| file | bytes | outcome | peak growth | bound | CPU ms |"; echo "|---|---|---|---|---|---|"; \
	set -o pipefail; LAZYIMG_PEAK_WORKING_MIB=64 $(SWIFT) test -c release --skip-build --scratch-path .build/peak \
	    --disable-swift-testing --filter DecodingWorstCaseMemoryTests 2>&1 | sed -n 's/^peak: //p'
	@echo; echo "| AVIF or HEIC | peak growth | estimate | estimate / peak |"; echo "|---|---|---|---|"; \
	set -o pipefail; $(SWIFT) test -c release --skip-build --scratch-path .build/peak \
	    --disable-swift-testing --filter DecodingAVIFHEICMemoryTests 2>&1 | sed -n 's/^estimate: //p'
