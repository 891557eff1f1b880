# A thin layer over CMake.  `make demo` and `make test` install missing
# Debian packages, configure, build, then run the demo or the tests.
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= 2
NP ?= 8
MPIEXEC_FLAGS ?= --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

.PHONY: all deps build demo test test-long test-tsan reproduce clean
all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

DEMO_ARGS = --quiet --sizes 512K,4M --pattern single --imbalance 0.5ms,1ms,2ms
# patbench at NP ranks: rank NP-1 late by 0.5, 1 and 2 ms, 512 KiB and
# 4 MiB per rank (at 4 MiB the clairvoyant rows cut the message in
# segments: against butterfly, the best of the bandwidth family); then,
# when SimGrid is installed, the same at 128 simulated ranks on the
# CURIE-like platform (deterministic, so 3 repetitions).  At P = 128 the
# predicted clairvoyant and auto are left out and the stamp exchange
# switched off, to keep the demo short (README, "Simulation at scale");
# the oracle shows what right predictions reach.
demo: build
	@mkdir -p $(BUILD)/demo
	mpiexec -n $(NP) $(MPIEXEC_FLAGS) $(BUILD)/patbench $(DEMO_ARGS) --reps 40 \
	  --output $(BUILD)/demo/demo.csv --plot $(BUILD)/demo/demo
	@if [ -x $(BUILD)/smpi/patbench ] && command -v smpirun >/dev/null; then \
	  echo; echo "== The same at P = 128 in SimGrid SMPI (simulated time) =="; \
	  PAT_REDUCE_EXCHANGE_INTERVAL=0 BUILD=$(BUILD) scripts/smpi-run \
	    128 curie patbench $(DEMO_ARGS) --reps 3 --warmup 2 \
	    --algorithms binomial,native,localredirect,butterfly,oracle \
	    --output $(BUILD)/demo/smpi128.csv --plot $(BUILD)/demo/smpi128; \
	else \
	  echo "(SimGrid SMPI not installed or not built: no P = 128 part)"; \
	fi

# The thesis' experiments in SMPI: report/REPORT.md, report/fig, report/data.
reproduce: build
	BUILD=$(BUILD) scripts/reproduce.sh report

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE long

# The exhaustive sweeps too slow for every run (ctest label long).
test-long: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L long

# The threads test (8 threads per rank, first calls at once) under
# ThreadSanitizer, in its own build directory; only what it needs is built.
test-tsan: deps
	cmake -S . -B build-tsan -DPATREDUCE_TSAN=ON $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS) --target test_threads
	cd build-tsan && ctest --output-on-failure -R '^mpi_threads'

clean:
	rm -rf $(BUILD)
