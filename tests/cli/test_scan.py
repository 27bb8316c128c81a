"""kgroup scan without Spark: the install hint, usage errors before any Spark starts, and
no other command importing pyspark."""
from __future__ import annotations

import subprocess
import sys
import zipfile

from conftest import ROOT, run_kgroup


def _without_pyspark() -> dict:
    """PySpark not installed, as run_kgroup's ``modules``."""
    return {name: None for name in [*sys.modules, "pyspark"] if name.split(".")[0] == "pyspark"}


def test_scan_without_pyspark_says_how_to_install(tmp_path):
    res = run_kgroup("scan", "--input", str(tmp_path / "log.jsonl"), modules=_without_pyspark())
    assert res.returncode == 2
    assert res.stderr == "kgroup: error: kgroup scan needs PySpark: pip install 'kgroup[spark]'\n"
    assert res.stdout == ""


def test_usage_errors_come_before_spark(tmp_path):
    blocked = _without_pyspark()  # proves no Spark is needed to refuse these
    for args, message in [(("--input", "x", "--save", "y"), "--save writes what is read from a cluster"),
                          (("--input", "x", "--stale-after", "soon"), "--stale-after: 'soon' is not a duration"),
                          (("--input", "x", "--since", "2h", "--until", "3h"), "--since is later than --until"),
                          (("--input", "x", "--storm", "0"), "--storm must be 1 or more")]:
        res = run_kgroup("scan", *args, modules=blocked)
        assert res.returncode == 2, (args, res.stderr)
        assert message in res.stderr and "Traceback" not in res.stderr


def test_other_commands_never_import_pyspark():
    code = ("import sys, kgroup.cli, kgroup.kafka.cluster, kgroup.cli.scan\n"
            "from typer.testing import CliRunner\n"
            "CliRunner().invoke(kgroup.cli.app, ['scan', '--help'])\n"
            "assert not [m for m in sys.modules if m.split('.')[0] in ('pyspark', 'pyarrow', 'pandas')], "
            "sorted(m for m in sys.modules if m.startswith('py'))\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_package_zip_ships_the_whole_package():
    from kgroup.scan.session import package_zip

    with zipfile.ZipFile(package_zip()) as z:
        names = set(z.namelist())
    for module in ("kgroup/__init__.py", "kgroup/kafka/cluster.py", "kgroup/kafka/logreader.py", "kgroup/scan/source.py", "kgroup/scan/decode.py",
                   "kgroup/offsets_log/records.py", "kgroup/kmsg/layouts.py"):
        assert module in names
    assert not any("__pycache__" in n for n in names)


def test_unreachable_cluster_fails_before_spark_starts():
    from conftest import free_port

    res = run_kgroup("scan", "-b", f"127.0.0.1:{free_port()}", "--timeout", "1.5")
    assert res.returncode == 3, res.stderr
    assert res.stderr.startswith("kgroup: error: cannot reach the cluster at 127.0.0.1:")
    assert len(res.stderr.strip().splitlines()) == 1 and res.seconds < 20
