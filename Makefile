# The two commands of the README. Each creates .venv and installs what it needs on first use.
#   make demo   the whole pipeline on the simulated youBot (robot-id demo)
#   make test   the test suite (what CI runs)
#   make test-fast  the unit tests only (no DDS nodes, CLI subprocesses, demo, benchmarks or simulated recordings): a few minutes
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-robot_id_ros

.PHONY: demo test test-fast bench docs clean interfaces

$(STAMP): setup.py setup.cfg package.xml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[standalone,test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/robot-id demo --out demo_out $(DEMO_ARGS)

# brics_actuator and control_msgs (no wheels) for the command-interface tests: built once from
# test/interfaces with the rosidl generators from PyPI into .cache/interfaces (a set-up step like
# the venv; a few minutes the first time, cached by the definitions' hash afterwards)
interfaces: $(STAMP)
	$(PY) tools/build_interfaces.py > /dev/null

# one BLAS thread: the suite runs fits beside DDS node processes on 2 cores (threaded BLAS
# oversubscribes them)
# TEST_WORKERS (default 2): pytest-xdist workers, each taking whole files (module fixtures run
# once), longest files first (test/conftest.py); every test has its own ROS domain, disjoint
# across workers (test/ros_helpers.py). The demo's end-to-end test runs afterwards on its own,
# because with another worker beside it its recording loses joint states.
# TEST_WORKERS=1: one process.
TEST_WORKERS ?= 2
PYTEST := OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -p no:cacheprovider
test: $(STAMP) interfaces
ifeq ($(TEST_WORKERS),1)
	$(PYTEST) test $(PYTEST_ARGS)
else
	$(PYTEST) -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	    --ignore=test/test_demo.py test $(PYTEST_ARGS)
	$(PYTEST) test/test_demo.py $(PYTEST_ARGS) || [ $$? -eq 5 ]
endif

test-fast: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -p no:cacheprovider -m "not integration and not slow" test $(PYTEST_ARGS)

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build install log *.egg-info demo_out .cache/interfaces

docs: $(STAMP)
	$(PY) tools/update_docs.py
