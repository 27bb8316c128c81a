"""No secret reaches stdout, stderr or the client's debug logs while kgroup talks to a real broker (Tansu)."""
from __future__ import annotations

import pytest
from cli.test_secrets import KEY_PASSWORD, _assert_clean, _config
from conftest import run_kgroup


@pytest.mark.broker
@pytest.mark.parametrize("extra", [[], ["-v", "-X", "debug=all"], ["-X", "debug=conf,security,broker"]])
def test_no_secret_against_live_broker_with_debug(tmp_path, tansu, extra):
    # Tansu speaks no SASL here, so authentication fails: the error path must stay clean too.
    r = run_kgroup("find-coordinator", "--command-config", _config(tmp_path, tansu), "--timeout", "3",
                   "-X", f"ssl.key.password={KEY_PASSWORD}", *extra, "G1")
    assert r.returncode == 3
    assert r.stderr.strip()  # it did say something
    _assert_clean(r)
