# The whole set-up: `make run` opens the dashboard on sample_data/, `make test` runs every test.
# Each target creates .venv and installs what it needs itself.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: run test test-fast bench chromium postgresql java podman clean

$(VENV)/.base: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.base pyproject.toml
	$(PY) -m pip install --quiet -e '.[test]'
	# irrCAC (the coefficients' cross-check) pins scipy==1.12 and pandas<3, which this stack outgrew:
	# its code runs on ours (tests/panel/test_coefficients.py), so it is installed without its pins.
	$(PY) -m pip install --quiet --no-deps irrCAC==0.4.4
	# ppi-python (the corrected headline's cross-check, tests/judge/test_headline.py) is in the test extras:
	# unlike irrCAC its requirements (numba, scikit-learn, statsmodels, gdown) install on this stack.
	# The judge-audit peers (tests/judge/test_peers.py compares our bias measures with theirs): judgecal and
	# judgemetry with their own requirements (pydantic is judgekit's and judgecal's); judgekit without
	# matplotlib, which only its report module (never imported by the tests) needs.
	$(PY) -m pip install --quiet 'pydantic>=2.5' judgecal==0.1.0 judgemetry==0.1.0
	$(PY) -m pip install --quiet --no-deps judgekit==0.2.1
	touch $@

run: $(VENV)/.base
	@$(PY) -c "from agreebound.app.store import configured_url, describe; u = configured_url(); print('agreebound: runs are recorded in', describe(u) if u else 'nowhere (AGREEBOUND_DB=off)')"
	$(VENV)/bin/streamlit run app.py --server.port $(PORT)

# Browser tests drive Debian's chromium (Playwright's own browser download cannot work here).
chromium:
	@test -x /usr/bin/chromium || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The store's tests start their own PostgreSQL server (initdb in a temporary folder): Debian's package.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "installing Debian's postgresql for the history store's tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# --engine spark runs Spark (pyspark, from the test extras) on Debian's Java 17.
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing Debian's Java 17 for the Spark engine's tests"; \
	  mkdir -p /usr/share/man/man1; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

# The container test (tests/app/test_container.py) builds and runs the image with Debian's podman on the runc
# runtime (crun is refused here), on a bookworm root that mmdebstrap makes (no registry image can be pulled).
podman:
	@{ command -v podman && test -x /usr/sbin/runc && command -v mmdebstrap; } >/dev/null 2>&1 || { \
	  echo "installing Debian's podman, runc and mmdebstrap for the container test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap >/dev/null; }

# Two processes, a test module each at a time (its fixtures, such as a module's server, start once),
# the heaviest modules first (tests/conftest.py orders them; --no-loadscope-reorder keeps that order):
# 504-886 s on this 2-core machine, whose speed varies from day to day (504-559 s on 2026-12-04, from
# a fresh clone and a warm venv; 625-670 s on 2026-12-01); the CPU is busy throughout (1,136 CPU-s
# against 1,184 before the Panel page drew only its open tab, side by side). Three processes took
# 816 s against 824 s for two (measured earlier). 2026-12-07, tests by package: 777 s wall while other jobs
# shared the machine (608 CPU-s for the run; the container test alone 229 s of it, on one process).
TEST_WORKERS ?= 2

test: $(VENV)/.test chromium postgresql java podman
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The edit-test loop: no browser, no Spark, no container, nothing marked slow (the bombs, the
# simulations); every other test, the AppTest pages included. make test runs all of them.
test-fast: $(VENV)/.test postgresql
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not e2e and not slow" --ignore=tests/e2e \
	  --ignore=tests/engines/test_spark_engine.py --ignore=tests/app/test_container.py -k "not spark"

# Every benchmark runs even when one misses a target; make bench fails at the end if any did. Each runs
# as a module from the repository's root (python -m bench.bench_x), which puts the root on sys.path:
# the benchmarks import one another (bench.bench_whatif) and the tests' helpers (tests.support.peak).
BENCHES := alpha graded_audit calibration formats dashboard cardinality import label_studio whatif load load_browser page_weight record engines spark_stages judge_scale judge_bias strict_floor cli_startup

bench: $(VENV)/.test chromium postgresql java
	@status=0; for b in $(BENCHES); do echo "== bench/bench_$$b.py"; $(PY) -m bench.bench_$$b || status=1; done; \
	  if [ $$status -ne 0 ]; then echo "make bench: a benchmark missed a target (see above)"; fi; exit $$status

clean:
	rm -rf $(VENV) artifacts .pytest_cache
