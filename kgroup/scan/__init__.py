"""kgroup scan: the fleet-wide report, a PySpark pipeline over the offsets log.

PySpark is an optional extra (``pip install 'kgroup[spark]'``); only this package
imports it, and only when ``kgroup scan`` runs.

- session.py: the Spark session (local or a cluster), quiet logs, kgroup shipped to executors
- source.py: the raw-record schema, the live read tasks (kgroup's offsets-log reader), --input readers, --save
- fold.py: what each read task computes where it decodes its records: partial rows per
  group and per committed partition, never a row per record (pure Python)
- merge.py: the partial rows of each group merged into its facts (pure Python)
- decode.py: decoded rows of the records that become table rows
- pipeline.py: the Spark plan: fold, shuffle by group, merge; the result tables under --out
- report.py: pure finishing logic (flags, windows, summary, table rows), unit-testable without Spark
"""
from __future__ import annotations

INSTALL_HINT = "kgroup scan needs PySpark: pip install 'kgroup[spark]'"


def require_pyspark() -> None:
    """UsageError with the install line when PySpark (or pyarrow) is missing."""
    from kgroup.errors import UsageError

    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
