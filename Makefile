# lazyimg: build, demo and tests.
# `make demo` and `make test` work on a fresh Debian 12 machine with the Swift 6.3
# toolchain on PATH; missing Debian packages are installed first (make deps).

# bash for pipefail in the test recipe.
SHELL    := /bin/bash
CONFIG   ?= debug
SWIFT    ?= swift
ifeq ($(origin CXX),default)
CXX      := c++
endif
STRICT   := -Wall -Wextra -pedantic -Werror
PACKAGES := libcurl4-openssl-dev libturbojpeg0-dev libspng-dev pkg-config libwebp-dev libgif-dev libpng-dev valgrind

# Where swift build puts liblazyimg.so.
BIN = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path)
DEMO_SRC := examples-c/demo.c examples-c/image_server.c
DEMO_HDR := examples-c/image_server.h include/lazyimg.h
# The loopback server encodes its images with these.
SERVER_LIBS := -lturbojpeg -lspng -lwebp -lgif -lpthread

.PHONY: all deps build demo demo-bin run-demo run-formats bench-request bench-decode bench-disk memcheck sanitize tsan \
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
	$(SWIFT) build -c $(CONFIG)
	ln -sf liblazyimg.so $(BIN)/liblazyimg.so.0

# The C examples, linked against the freshly built library (rpath to it):
# demo (the list) and formats (fill, premultiplied BGRA, encoded output).
demo-bin: build
	@mkdir -p build
	$(CC) -std=c99 $(STRICT) -Iinclude -Iexamples-c $(DEMO_SRC) -o build/demo \
	    -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(SERVER_LIBS)
	$(CC) -std=c99 $(STRICT) -Iinclude -Iexamples-c examples-c/formats.c examples-c/image_server.c \
	    -o build/formats -L$(BIN) -Wl,-rpath,$(BIN) -llazyimg $(SERVER_LIBS)

run-demo: demo-bin
	./build/demo

run-formats: demo-bin
	./build/formats

demo: run-demo run-formats

# What the per-frame calls cost on the host thread (release build; prints a table).
bench-request:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -Iexamples-c examples-c/bench_request.c examples-c/image_server.c \
	    -o build/bench_request -L$$($(SWIFT) build -c release --show-bin-path) \
	    -Wl,-rpath,$$($(SWIFT) build -c release --show-bin-path) -llazyimg $(SERVER_LIBS)
	./build/bench_request

# What the disk cache buys: warm start, cold from disk and disk-hit throughput
# against the network and a read() + TurboJPEG floor (release build; prints a table).
bench-disk:
	$(MAKE) --no-print-directory CONFIG=release build
	@mkdir -p build
	$(CC) -std=c99 -O2 $(STRICT) -Iinclude -Iexamples-c examples-c/bench_disk.c examples-c/image_server.c \
	    -o build/bench_disk -L$$($(SWIFT) build -c release --show-bin-path) \
	    -Wl,-rpath,$$($(SWIFT) build -c release --show-bin-path) -llazyimg $(SERVER_LIBS)
	./build/bench_disk

# Thumbnails per second against Pillow and djpeg on the Kodak photos (needs
# ../shared/corpus; installs libjpeg-turbo-progs and a Pillow virtualenv).
bench-decode:
	scripts/bench-decode.sh

check-header: check-header-c check-header-cxx

check-header-c:
	$(CC) -std=c99 $(STRICT) -fsyntax-only -Iinclude scripts/header-check.c

check-header-cxx:
	$(CXX) -std=c++11 $(STRICT) -fsyntax-only -Iinclude scripts/header-check.cpp

# The C examples again under valgrind: no invalid access, no leak.
memcheck: demo-bin
	scripts/memcheck.sh $(BIN) ./build/demo
	scripts/memcheck.sh $(BIN) ./build/formats

# The corpus tests (PngSuite, png-corrupt/, bad/, ...) again under AddressSanitizer,
# built into their own scratch path: an invalid access aborts the run, and any leak
# LeakSanitizer finds fails it, except the Swift runtime's and XCTest's own blocks
# listed in scripts/lsan.supp. Passes with a message when ../shared/corpus is absent.
CORPUS := ../shared/corpus
sanitize: deps
	@if [ ! -d $(CORPUS) ]; then echo "sanitize: skipped, no test corpus at $(CORPUS)"; exit 0; fi; \
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	    $(SWIFT) test --sanitize=address --scratch-path .build/asan --disable-swift-testing --filter DecodingCorpusTests

# The threaded parts (scheduling, delivery, libcurl thread, decode pool, the C API
# end to end) under ThreadSanitizer: any data race fails the run.
tsan: deps
	TSAN_OPTIONS=halt_on_error=1 \
	    $(SWIFT) test --sanitize=thread --scratch-path .build/tsan --disable-swift-testing \
	    --filter 'LoaderPolicy|LoaderList|EndToEnd|ABIContract|OutputOptions|CurlDataLoader|DecodePool'

check-symbols: build
	scripts/check-symbols.sh $(BIN)/liblazyimg.so

# XCTests first (a failure stops here), then the C-side checks and the corpus sweep
# under AddressSanitizer, the threaded tests under ThreadSanitizer, counted.
C_CHECKS := check-header-c check-header-cxx check-symbols run-demo run-formats memcheck sanitize tsan
# The last line counts everything: XCTests (executed less skipped) and C checks.
test: deps
	$(SWIFT) build -c $(CONFIG) --build-tests
	@mkdir -p build
	set -o pipefail; $(SWIFT) test -c $(CONFIG) --disable-swift-testing 2>&1 | tee build/xctest.log
	@passed=0; failed=0; \
	for check in $(C_CHECKS); do \
	    if $(MAKE) --no-print-directory $$check; then passed=$$((passed + 1)); \
	    else failed=$$((failed + 1)); echo "C check failed: $$check"; fi; \
	done; \
	summary=$$(grep -E "^[[:space:]]*Executed [0-9]+ tests" build/xctest.log | tail -n 1); \
	executed=$$(echo "$$summary" | sed -E 's/.*Executed ([0-9]+) tests.*/\1/'); \
	skipped=$$(echo "$$summary" | grep -oE '[0-9]+ tests? skipped' | grep -oE '^[0-9]+' || echo 0); \
	xfailed=$$(echo "$$summary" | sed -E 's/.* ([0-9]+) failures?.*/\1/'); \
	echo "C checks: $$passed passed, $$failed failed; XCTests: $$executed executed, $$skipped skipped, $$xfailed failed"; \
	echo "total: $$((executed - skipped - xfailed + passed)) passed, $$((xfailed + failed)) failed"; \
	[ $$failed -eq 0 ]

clean:
	rm -rf .build build
