"""No secret reaches stdout, stderr or the client's debug logs while kgroup talks to a real broker (Tansu)."""
from __future__ import annotations

import pytest
from cli.test_secrets import KEY_PASSWORD, _assert_clean, _config
from conftest import front_certs, front_sasl_ssl, run_kgroup  # noqa: F401


@pytest.mark.broker
@pytest.mark.parametrize("extra", [[], ["-v", "-X", "debug=all"], ["-X", "debug=conf,security,broker"]])
def test_no_secret_against_live_broker_with_debug(tmp_path, tansu, extra):
    # Tansu speaks no SASL here, so authentication fails: the error path must stay clean too.
    r = run_kgroup("find-coordinator", "--command-config", _config(tmp_path, tansu), "--timeout", "3",
                   "-X", f"ssl.key.password={KEY_PASSWORD}", *extra, "G1")
    assert r.returncode == 3
    assert r.stderr.strip()  # it did say something
    _assert_clean(r)


@pytest.mark.broker
@pytest.mark.java
@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "OAUTHBEARER"])
def test_no_secret_through_the_tls_sasl_front_with_debug(front_sasl_ssl, mechanism):
    """A good login over SASL_SSL with every client log on: neither client prints a password,
    client secret or token (the tokens the endpoint issued are checked too)."""
    conf = front_sasl_ssl.client_config(mechanism)
    x = [a for k, v in conf.items() if k != "bootstrap.servers" for a in ("-X", f"{k}={v}")]
    r = run_kgroup("offsets", "--all-groups", "-b", front_sasl_ssl.bootstrap, "-v", "-X", "debug=all",
                   "--timeout", "20", *x)
    assert r.returncode == 0, r.stderr[-2000:]
    secrets = [*front_sasl_ssl.users.values(), *front_sasl_ssl.oauth.clients.values()]
    for secret in secrets:
        assert secret not in r.stdout + r.stderr
    from tokenendpoint import unsecured_jwt

    assert front_sasl_ssl.oauth.issued or mechanism != "OAUTHBEARER"
    for claims in front_sasl_ssl.oauth.issued:  # each token issued, as the endpoint wrote it
        token = unsecured_jwt(claims)
        assert token not in r.stdout + r.stderr and token.split(".")[1] not in r.stderr
