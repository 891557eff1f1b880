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

.PHONY: all deps build demo test clean
all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# patbench at NP ranks: rank NP-1 late by 0.5, 1 and 2 ms, 512 KiB per rank.
demo: build
	@mkdir -p $(BUILD)/demo
	mpiexec -n $(NP) $(MPIEXEC_FLAGS) $(BUILD)/patbench --quiet --sizes 512K \
	  --pattern single --imbalance 0.5ms,1ms,2ms --reps 40 \
	  --output $(BUILD)/demo/demo.csv --plot $(BUILD)/demo/demo

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
