# nbfft — the two set-up commands of the README, and the checks around them.
#
#   make demo          install what is missing, build, run the sine-kernel benchmark (4 local ranks):
#                      nbfft's default plan, its tuned plan and seed 000's 2x2 configuration
#                      against FFTW-MPI, verified, then a one-line summary
#   make test          install what is missing, build, run every test (ctest, real mpirun),
#                      then the seed experiments in quick mode (make experiments-quick)
#   make experiments   set up what is missing, run every seed experiment (quick; QUICK=0: full)
#   make test MPI=mpich   the same against MPICH instead of Open MPI
#   make test MKL=0    the same without Intel MKL (the local FFT backend 'mkl' is then not built)
#   make test CUDA=0   the same without the CUDA device plans (device=cuda is then an error)
#   make gpu-bundle    what `scripts/gpu-check.sh` runs on a GPU machine, in one folder (docs/gpu.md)
#   make python-test   pip install ./python into the venv, run its pytest suite under mpirun
#   make xdmf-test     an HDF5 time series written at 2 and 3 ranks, its XDMF read by VTK
#   make tsan          ThreadSanitizer build of the engine tests
#   make asan          AddressSanitizer + UBSan build of the whole suite
#
# Each MPI gets its own build folder (build/openmpi, build/mpich, ...).
MPI        ?= openmpi
BUILD_DIR  ?= build/$(MPI)
BUILD_TYPE ?= Release
JOBS       ?= 2
CMAKE_ARGS ?=

ifeq ($(MPI),mpich)
  # Debian installs both MPIs side by side; pin every tool to MPICH. libfftw3-mpi is built
  # for Open MPI only, so the FFTW-MPI baseline is left out of MPICH builds.
  MPI_ARGS = -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich \
             -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -DNBFFT_WITH_FFTW_MPI=OFF
  MPIRUN   = mpiexec.mpich
  PERF_MPI_ARGS = --no-fftw-mpi
else ifeq ($(MPI),openmpi)
  MPI_ARGS = -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
             -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi
  MPIRUN   = mpiexec.openmpi --oversubscribe --bind-to none
else
  $(error MPI must be openmpi or mpich, not '$(MPI)')
endif

# Open MPI refuses root without these; CI and the sandbox run as root.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

# Python virtual environment for the Python package, its tests and the experiments; one per
# MPI, because mpi4py and the extension bind to one MPI library.
VENV ?= $(BUILD_DIR)/venv
PY   := $(VENV)/bin/python

.PHONY: all deps build test demo docs tsan asan clean venv python-test xdmf-test experiments experiments-quick performance bench-r2r bench-io bench-backends gpu-bundle cuda-kit
all: build

deps:
	@bash scripts/install-deps.sh $(MPI)

$(VENV)/.ready: scripts/python-requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r scripts/python-requirements.txt
	touch $@

# mpi4py's PyPI wheel runs on Open MPI as is, but its MPICH variant links libmpi.so.12,
# which Debian's MPICH does not ship (libmpich.so.12): build mpi4py from source against
# MPICH in that venv instead (~3 min, once).
ifeq ($(MPI),mpich)
  VENV_MPI4PY = $(VENV)/.mpi4py-mpich
endif
venv: deps $(VENV)/.ready $(VENV_MPI4PY)

$(VENV)/.mpi4py-mpich: $(VENV)/.ready
	MPICC=mpicc.mpich $(PY) -m pip install -q --no-binary mpi4py --force-reinstall --no-deps "mpi4py>=4.0"
	touch $@

# Intel MKL for the local FFT backend 'mkl' (local/mkl.cpp, docs/install.md): PyPI's wheels
# in one venv for every build folder (MKL does not depend on the MPI), downloaded once (~700 MB
# installed). --no-deps: the sequential layer needs none of the wheels mkl pulls in
# (intel-openmp, tbb, tcmlib, umf), and their libhwloc.so.15 beside MKL's libraries would
# shadow Open MPI's on the RPATH. MKL=0 builds without it (-DNBFFT_WITH_MKL=OFF).
MKL         ?= 1
MKL_VERSION ?= 2026.2.0
MKL_VENV    ?= build/mkl
ifeq ($(MKL),0)
  MKL_ARGS  = -DNBFFT_WITH_MKL=OFF
else
  MKL_STAMP = $(MKL_VENV)/.ready-$(MKL_VERSION)
  MKL_ARGS  = -DNBFFT_WITH_MKL=ON -DMKL_DIR=$(abspath $(MKL_VENV))/lib/cmake/mkl
endif

$(MKL_VENV)/.ready-$(MKL_VERSION):
	python3 -m venv $(MKL_VENV)
	$(MKL_VENV)/bin/python -m pip install -q --no-deps \
	  mkl-devel==$(MKL_VERSION) mkl==$(MKL_VERSION) mkl-include==$(MKL_VERSION)
	touch $@

# The CUDA 13 kit from PyPI for the device plans (gpu/, docs/gpu.md): nvcc and cuFFT in one venv
# for every build folder (~600 MB installed), so every build compiles and links the GPU sources
# even without a GPU (their tests then report SKIPPED; gpu.emulated runs the device plan's path
# on the host). CUDA=0 builds without them (-DNBFFT_WITH_CUDA=OFF).
CUDA      ?= 1
CUDA_VENV ?= build/cuda
# (pinned, as MKL is: the kit every build and CI compiled with; the stamp names the nvcc)
CUDA_VERSION ?= 13.5.37
# (NCCL for device_exchange=nccl: nbfft compiles against its header and loads the library
# only when a plan asks for it.)
NCCL_VERSION ?= 2.32.3
CUDA_PKGS  = nvidia-cuda-nvcc==$(CUDA_VERSION) nvidia-cuda-runtime==$(CUDA_VERSION) nvidia-cuda-crt==$(CUDA_VERSION) \
             nvidia-nvvm==$(CUDA_VERSION) nvidia-cuda-cccl==13.3.5.0.6 nvidia-cufft==12.5.0.14 \
             nvidia-nccl-cu13==$(NCCL_VERSION)
ifeq ($(CUDA),0)
  CUDA_ARGS  = -DNBFFT_WITH_CUDA=OFF
else
  CUDA_STAMP = $(CUDA_VENV)/.ready-$(CUDA_VERSION)-nccl$(NCCL_VERSION)
  # (expanded when the recipe runs, after the venv exists)
  CUDA_ARGS  = -DNBFFT_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER=$(realpath $(wildcard $(CUDA_VENV)/lib/python3*/site-packages/nvidia/cu13/bin/nvcc))
endif

$(CUDA_VENV)/.ready-$(CUDA_VERSION)-nccl$(NCCL_VERSION):
	python3 -m venv $(CUDA_VENV)
	$(CUDA_VENV)/bin/python -m pip install -q --no-deps $(CUDA_PKGS)
	touch $@

build: deps $(MKL_STAMP) $(CUDA_STAMP)
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(MPI_ARGS) $(MKL_ARGS) $(CUDA_ARGS) $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS)

# (The experiments reuse the build made here: EXPERIMENTS_SETUP=venv skips a second cmake
# configure and build check.)
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure --no-tests=error -j$(JOBS)
	$(MAKE) --no-print-directory python-test
	$(MAKE) --no-print-directory xdmf-test
	$(MAKE) --no-print-directory experiments-quick EXPERIMENTS_SETUP=venv

# The Python package, installed the way a user would (pip install ./python) against this
# MPI's compilers, then its pytest suite under mpirun at each rank count, each run with a
# timeout (and every test with one of its own, python/pyproject.toml). The build folder
# (absolute: scikit-build-core resolves a relative one against python/) persists so a second run rebuilds only what changed; no build isolation because the venv
# already holds the build requirements (scripts/python-requirements.txt). mpi_pytest.py
# prints rank 0's report, fails if any rank failed, and fails when no test was collected.
# MPICH busy-polls, so each pytest run past 2 ranks costs 2-3 minutes on 2 cores: under
# MPICH the Python suite runs at 1 and 2 ranks (mpi4py built against MPICH, communicators,
# the bindings); the 3- and 4-rank grids run in Python under Open MPI and in C++ under both.
ifeq ($(MPI),mpich)
  PYTEST_RANKS ?= 1 2
else
  PYTEST_RANKS ?= 1 2 3 4
endif
python-test: venv $(MKL_STAMP)
	CMAKE_ARGS="$(MPI_ARGS) $(MKL_ARGS)" $(PY) -m pip install --no-build-isolation -C build-dir=$(CURDIR)/$(BUILD_DIR)/python ./python
	@for n in $(PYTEST_RANKS); do \
	  echo "python-test: pytest on $$n rank(s) ($(MPI))"; \
	  timeout 600 $(MPIRUN) -n $$n $(PY) python/tests/mpi_pytest.py -q -x --color=no -p no:cacheprovider python/tests \
	    || { echo "python-test: FAILED on $$n rank(s)"; exit 1; }; \
	done
	@echo "python-test: the examples as documented (python -m mpi4py -m ...), 2 ranks"
	timeout 300 $(MPIRUN) -n 2 $(PY) -m mpi4py -m nbfft.examples.poisson --n 32
	timeout 300 $(MPIRUN) -n 2 $(PY) -m mpi4py -m nbfft.examples.channel_poisson --n 16
	timeout 300 $(MPIRUN) -n 2 $(PY) -m mpi4py -m nbfft.examples.taylor_green --n 16 --steps 4
	@echo "python-test: the Navier-Stokes example checkpoints at 2 ranks and restarts at 3 (nbfft.io)"
	timeout 300 $(MPIRUN) -n 2 $(PY) -m mpi4py -m nbfft.examples.taylor_green --n 16 --steps 4 \
	  --checkpoint $(BUILD_DIR)/taylor_green.h5 --checkpoint-every 2
	timeout 300 $(MPIRUN) -n 3 $(PY) -m mpi4py -m nbfft.examples.taylor_green --n 16 --steps 8 \
	  --restart $(BUILD_DIR)/taylor_green.h5
	@echo "python-test: python -m nbfft, and its self-test on 3 ranks (a failing one must exit non-zero)"
	timeout 60 $(PY) -m nbfft
	timeout 120 $(MPIRUN) -n 3 $(PY) -m nbfft --test
	@timeout 120 $(MPIRUN) -n 2 $(PY) -m nbfft --test --tolerance 0 > $(BUILD_DIR)/selftest_fail.log 2>&1; \
	  rc=$$?; if [ $$rc -eq 0 ] || [ $$rc -eq 124 ] || [ $$rc -eq 137 ]; then cat $(BUILD_DIR)/selftest_fail.log; \
	    echo "python-test: FAILED: a self-test that fails exited $$rc"; exit 1; fi; \
	  grep -q "nbfft self-test: FAILED" $(BUILD_DIR)/selftest_fail.log \
	  || { cat $(BUILD_DIR)/selftest_fail.log; echo "python-test: FAILED: no failure report"; exit 1; }
	@echo "python-test: types: mypy on the installed package (examples included) and a typed usage file"
	@echo "  (no MPI; --warn-unused-ignores keeps the usage file's deliberate mistakes errors), then"
	@echo "  stubtest: the hand-written nbfft/_plan.pyi against the module"
	MYPYPATH=python/tests timeout 300 $(PY) -m mypy --no-incremental --warn-unused-ignores -p nbfft -m typed_usage
	timeout 300 $(PY) -m mypy.stubtest --allowlist python/tests/stubtest_allowlist.txt nbfft._plan

# The XDMF beside an HDF5 time series opens in VTK's XDMF reader (what ParaView uses) with
# the right grids, times and values (docs/io.md): written by the C++ driver at 2 and 3 ranks,
# read headless by tests/io/check_xdmf.py. A build without parallel HDF5 has no driver.
xdmf-test: venv
	@if [ ! -x $(BUILD_DIR)/tests/io/io_xdmf_series ]; then \
	  echo "xdmf-test: skipped: $(BUILD_DIR) was built without parallel HDF5"; exit 0; fi; \
	for n in 2 3; do \
	  echo "xdmf-test: a time series written at $$n ranks, read by vtkXdmfReader"; \
	  rm -rf $(BUILD_DIR)/xdmf-test-$$n; \
	  timeout 120 $(MPIRUN) -n $$n $(BUILD_DIR)/tests/io/io_xdmf_series $(BUILD_DIR)/xdmf-test-$$n || exit 1; \
	  timeout 120 $(PY) tests/io/check_xdmf.py $(BUILD_DIR)/xdmf-test-$$n/run.xmf || exit 1; \
	done

# The seeds' experiments (docs/experiments.md), set up from nothing: apt packages, the build
# (with its benchmarks) and the venv, then the unit tests of the experiments' pure parts (the
# verdict rules, the docs page against its data, the scaling model: < 5 s, no MPI), then every
# experiment on local ranks, then a check that each wrote its figure, a verdict that its data
# regrades to, and a valid data.json. Quick by default (a few minutes: small sizes, 3 runs of
# each measurement); QUICK=0 runs the full sizes, 5 runs each (much longer). Results in
# $(BUILD_DIR)/results/index.md. EXPERIMENTS_ARGS adds options (e.g. --lock FILE, --repeats N).
QUICK ?= 1
EXPERIMENTS_ARGS ?=
EXPERIMENTS ?= all
EXPERIMENTS_SETUP ?= venv build
experiments: $(EXPERIMENTS_SETUP)
	PYTHONPATH=experiments $(PY) -m pytest -q --color=no -p no:cacheprovider --timeout 120 experiments/tests
	NBFFT_PYTHON=$(abspath $(PY)) tools/nbfft-experiments run $(EXPERIMENTS) $(if $(filter 0,$(QUICK)),,--quick) \
	  --build $(BUILD_DIR) --mpi $(MPI) --out $(BUILD_DIR)/results --check $(EXPERIMENTS_ARGS)

# Under MPICH (busy-polling: every wait at 3-4 ranks on 2 cores burns time slices) make test's
# quick run measures each point twice, the least the verdicts' spread takes, and runs a subset
# that still drives every benchmark mode the experiments use under MPICH: overlap (caller and
# thread engines, concurrent exchanges), nbfft-sine (plane chunks at 2 and 4 ranks, traced
# timelines), primitives (barrier). Left to Open MPI's run, which has all 15: the grid and
# algorithm sweeps (s000_table2, s000_fig7, s002_fig1_2/fig5_7, s003_primitives,
# timeline_pipeline), ~145 of MPICH's ~190 s, measuring more points of the same modes
# (nbfft-bench kernels runs under MPICH in ctest's fft.kernels_bench). `make experiments
# MPI=mpich` still runs all of them.
ifeq ($(MPI),mpich)
  QUICK_REPEATS = --repeats 2
  QUICK_EXPERIMENTS = s000_table1 s000_fig6 s000_fig8 s000_fig9 s000_fig10 s001_fig2 s001_fig3_4 s002_fig3_4 s003_barrier
else
  QUICK_EXPERIMENTS = all
endif
experiments-quick:
	$(MAKE) --no-print-directory experiments QUICK=1 EXPERIMENTS="$(QUICK_EXPERIMENTS)" \
	  EXPERIMENTS_ARGS="$(QUICK_REPEATS) $(EXPERIMENTS_ARGS)"

# docs/performance.md: nbfft (default and tuned) against FFTW-MPI, mpi4py-fft and FFTW's
# threaded serial transform, the lean workspace's cost and a phase profile, one command
# (~35 min on 2 cores at 128^3-512^3 on 1, 2, 4 ranks; PERF_ARGS="--grids 128,256
# --sections compare" remakes only those rows). mpi4py-fft is installed into the venv for it.
PERF_ARGS ?= --grids 128,256,512
performance: venv build
	CMAKE_ARGS="$(MPI_ARGS) $(MKL_ARGS)" $(PY) -m pip install -q --no-build-isolation -C build-dir=$(CURDIR)/$(BUILD_DIR)/python ./python
	$(PY) -m pip install -q mpi4py-fft
	$(PY) bench/compare/performance.py --build $(BUILD_DIR) --mpirun "$(MPIRUN)" $(PERF_MPI_ARGS) $(PERF_ARGS)

# Issue 18's peers (docs/performance.md "Sine/cosine and padded transforms against mpi4py-fft
# and FFTW-MPI"): nbfft's kinds (dct2; periodic x,y + dst2 z) and padding=1.5 against
# mpi4py-fft's r2r and padding and nbfft's pad-by-hand, variants interleaved round by round,
# after checking that both sides compute the same numbers. mpi4py-fft goes into the venv here
# only (not scripts/python-requirements.txt: CI does not need it).
BENCH_R2R_ARGS ?= --ranks 1,2,4
bench-r2r: venv build
	CMAKE_ARGS="$(MPI_ARGS) $(MKL_ARGS)" $(PY) -m pip install -q --no-build-isolation -C build-dir=$(CURDIR)/$(BUILD_DIR)/python ./python
	$(PY) -m pip install -q mpi4py-fft
	$(PY) python/benchmarks/peers_r2r_padding.py --mpirun "$(MPIRUN)" $(BENCH_R2R_ARGS)

# Issue 23's field I/O (docs/performance.md "Fields to disk"): nbfft's HDF5 checkpoint of a
# double field against mpi4py-fft's DistArray.write/read on parallel h5py and one process's
# numpy.tofile/fromfile, interleaved rounds, files in /tmp. Parallel h5py is built from
# source into the venv here only (~4 min once; ECOSYSTEM.md "Parallel HDF5"), not for make test.
BENCH_IO_ARGS ?= --grids 256,512 --ranks 1,2,4
bench-io: venv build
	$(PY) -m pip install -q mpi4py-fft
	$(PY) -c "import h5py, sys; sys.exit(0 if h5py.get_config().mpi else 1)" 2>/dev/null || { \
	  $(PY) -m pip install -q "Cython>=3" pkgconfig "setuptools>=77" && \
	  HDF5_MPI=ON HDF5_PKGCONFIG_NAME=hdf5-$(MPI) CC=mpicc.$(MPI) $(PY) -m pip install -q --no-build-isolation \
	    --no-binary=h5py --force-reinstall --no-deps h5py; }
	$(PY) bench/io/bench_io.py --build $(BUILD_DIR) --mpirun "$(MPIRUN)" $(BENCH_IO_ARGS)

# One interleaved run (~10 s on 2 cores once built): nbfft's default plan first, the quick tuner's
# choice (a few seconds of trials), seed 000's 2x2 configuration and FFTW-MPI (MPICH builds
# have none: the summary says so and compares nbfft's runs with its default plan).
demo: build
	$(MPIRUN) -n 4 $(BUILD_DIR)/bin/nbfft-sine --grid 128 --iters 30 --autotune quick --autotune-budget 10 \
	  --seed-run --baseline auto

# Refreshes the registry tables in docs/algorithms.md.
docs: build
	bash scripts/check-docs.sh $(BUILD_DIR)/bin/nbfft-bench docs/algorithms.md --fix
	TABLE=options bash scripts/check-docs.sh $(BUILD_DIR)/bin/nbfft-bench docs/fft.md --fix

# The thread engine and the collectives it runs, the plans' compute threads (fft.threads) and
# the device plan's driver with the thread engine (gpu.emulated), under ThreadSanitizer. MPI
# itself is not instrumented: scripts/tsan.supp silences reports that lie wholly inside the MPI
# library.
TSAN_TESTS = test_coll_alltoall test_coll_stress test_coll_primitives test_io_background test_fft_threads test_nd_threads \
             test_gpu_device_plan
tsan: deps $(MKL_STAMP)
	cmake -S . -B build/tsan-$(MPI) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBFFT_SANITIZE=thread $(MPI_ARGS) $(MKL_ARGS)
	cmake --build build/tsan-$(MPI) -j$(JOBS) --target $(TSAN_TESTS)
	cd build/tsan-$(MPI) && TSAN_OPTIONS="suppressions=$(CURDIR)/scripts/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
	  ctest --output-on-failure -R 'coll\.(alltoall|stress|primitives)|io\.background\.|fft\.threads|nd\.threads|gpu\.emulated' -j1

asan:
	$(MAKE) build BUILD_DIR=build/asan-$(MPI) BUILD_TYPE=RelWithDebInfo CMAKE_ARGS="-DNBFFT_SANITIZE=address"
	cd build/asan-$(MPI) && ASAN_OPTIONS="detect_leaks=0" ctest --output-on-failure -L mpi -j$(JOBS)

clean:
	rm -rf build

# Issue 33's backends on the 3-D plan (docs/performance.md "Local FFT backends"): FFTW, MKL and
# the tuner's per-stage mix at 128^3 and 256^3 on 1 and 2 ranks, r2c and c2c, double and
# single, interleaved rounds (~25 min on 2 cores), and nbfft-bench-local's stage table.
BENCH_BACKENDS_ROUNDS ?= 2
bench-backends: build
	bash bench/local/compare_backends.sh $(BUILD_DIR) $(BENCH_BACKENDS_ROUNDS) $(MPIRUN)
	$(BUILD_DIR)/bin/nbfft-bench-local --grids 128,256 --rounds 7

# The device check's bundle (scripts/gpu-bundle.sh): a CUDA Release build's GPU test and
# benchmark with their libraries and Debian's Open MPI and FFTW runtime packages, to carry to
# a GPU machine and run there with scripts/gpu-check.sh (docs/gpu.md "Checking on a GPU").
# PyPI's CUDA kit alone, pinned above (scripts/gpu-bundle.sh installs it through this).
cuda-kit: $(CUDA_STAMP)

gpu-bundle: $(CUDA_STAMP)
	CUDA_VENV=$(CUDA_VENV) bash scripts/gpu-bundle.sh
