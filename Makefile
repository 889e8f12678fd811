# pipesplit top-level driver. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# Debian packages the project needs to build, test and run.
DEB_PACKAGES := g++ cmake make libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev \
	libfmt-dev nlohmann-json3-dev libopenblas-dev libopenmpi-dev openmpi-bin libmimalloc-dev \
	libabsl-dev python3-numpy pybind11-dev python3-dev python3-pytest libcpp-httplib-dev \
	libsentencepiece-dev sentencepiece libpcre2-dev libssl-dev pkgconf

# Sanitizer build of the whole test suite (make test-asan) and libFuzzer runs (make fuzz), each
# in its own build folder.
ASAN_DIR ?= build-asan
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_parser fuzz_roundtrip fuzz_rewrite fuzz_tir fuzz_safetensors fuzz_wire \
                fuzz_json_index
# Any ASan/UBSan report fails the test; leaks of OpenMPI's own allocations are suppressed
# (tests/sanitizers/lsan.supp says why).
# keep_loaded.so makes dlclose a no-op so leaks inside OpenMPI's dlopen'ed components keep their
# library names (tests/sanitizers/keep_loaded.c).
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:verify_asan_link_order=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
	LD_PRELOAD=$(CURDIR)/$(ASAN_DIR)/libpipesplit_keep_loaded.so

.PHONY: all deps configure build test test-asan fuzz bench demo format clean

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: deps
	$(MAKE) build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

test-asan: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
	  -DPIPESPLIT_SANITIZE=ON -DPIPESPLIT_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) --timeout 900

# Builds the fuzz targets with clang, makes the seed corpora (tests and ../shared/corpus) in
# $(FUZZ_DIR)/seeds, and runs each target for FUZZ_SECONDS; the corpus each run grows stays in
# $(FUZZ_DIR)/corpus, crashing inputs go to $(FUZZ_DIR)/findings/<target>/.
fuzz:
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DPIPESPLIT_FUZZ=ON -DPIPESPLIT_BUILD_TESTS=OFF \
	  -DPIPESPLIT_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(FUZZ_TARGETS)
	python3 fuzz/make_seeds.py . $(FUZZ_DIR)/seeds
	@for t in $(FUZZ_TARGETS); do \
	  case $$t in fuzz_safetensors|fuzz_wire) opts="-max_len=4096";; \
	    fuzz_json_index) opts="-max_len=16384";; \
	    *) opts="-max_len=16384 -dict=fuzz/tvmscript.dict";; esac; \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/findings/$$t; \
	  echo "== $$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz/$$t $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/seeds/$$t $$opts -timeout=20 \
	    -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/findings/$$t/ 2>&1 | \
	    grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+==|FINDING|SUMMARY|artifact)" ; \
	  test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

bench: build
	$(BUILD_DIR)/bench/pipesplit_bench --benchmark_min_time=0.2
	bench/serve_bench.sh $(BUILD_DIR)
	bench/folder_module_bench.sh $(BUILD_DIR)

# Builds only what the demo runs (the tool and the Python module), not the tests.
demo: deps
	$(MAKE) configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target pipesplit_demo
	./examples/demo.sh $(BUILD_DIR)/pipesplit

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
