"""kgroup offsets from a snapshot: the table, CSV and --lag-above, golden."""
from __future__ import annotations

from conftest import run_kgroup

from cli.test_describe import SEED, _write

OFFSETS_TABLE = """\
GROUP    TOPIC    PARTITION    COMMITTED    LOG-START    LOG-END    LAG    MEMBER-ID    CLIENT-ID    HOST       METADATA
-------  -------  -----------  -----------  -----------  ---------  -----  -----------  -----------  ---------  ----------
G1       Gone     0            3            0            4          1      -            -            -          -
G1       Order    0            120          0            130        10     C1-aaa       C1           /10.0.0.1  m
G1       Order    1            -            -            -          -      C1-aaa       C1           /10.0.0.1  -
G1       Order    2            -            -            -          -      C1-aaa       C1           /10.0.0.1  -
G1       Order    3            -            -            -          -      C2-bbb       C2           /10.0.0.2  -
G1       Order    4            -            -            -          -      C2-bbb       C2           /10.0.0.2  -
G1       Order    5            -            -            -          -      C3-ccc       C3           /10.0.0.3  -
G1       Order    6            5            5            5          0      C3-ccc       C3           /10.0.0.3  -
G1       Stock    0            -            -            -          -      C1-aaa       C1           /10.0.0.1  -
G1       Stock    1            -            -            -          -      C1-aaa       C1           /10.0.0.1  -
G1       Stock    2            -            -            -          -      C2-bbb       C2           /10.0.0.2  -
G1       Stock    3            -            -            -          -      C2-bbb       C2           /10.0.0.2  -
G1       Stock    4            7            0            10         3      C3-ccc       C3           /10.0.0.3  -
group G1 (Stable): total lag 14  [Gone=1, Order=10, Stock=3]
"""


def test_offsets_table_golden(tmp_path):
    # never-committed partitions show '-'; the committed partition nobody owns (Gone-0) is listed
    r = run_kgroup("offsets", "--snapshot", _write(tmp_path, SEED))
    assert (r.returncode, r.stdout, r.stderr) == (0, OFFSETS_TABLE, "")


def test_offsets_csv_and_lag_above(tmp_path):
    path = _write(tmp_path, SEED)
    r = run_kgroup("offsets", "--snapshot", path, "-o", "csv", "--lag-above", "9")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0] == "group,topic,partition,committed,log_start,log_end,lag,member_id,client_id,host,metadata"
    assert lines[2] == "G1,Order,0,120,0,130,10,C1-aaa,C1,/10.0.0.1,m"
    assert run_kgroup("offsets", "--snapshot", path, "--lag-above", "10").returncode == 0
