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

demo: build
	mpiexec -n $(NP) $(MPIEXEC_FLAGS) $(BUILD)/patdemo 1 60 65536

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
