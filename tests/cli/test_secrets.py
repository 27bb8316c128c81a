"""No secret from the settings ever reaches stdout or stderr, even with full client debug."""
from __future__ import annotations

from conftest import free_port, run_kgroup

PASSWORD = "S3cret-Passw0rd-7f1c"
JAAS_PASSWORD = "Jaas-Only-Pw-9a2e"
KEY_PASSWORD = "Key-Pw-5d6b"


def _config(tmp_path, bootstrap: str):
    path = tmp_path / "client.properties"
    path.write_text(
        f"bootstrap.servers={bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="oncall" password="{JAAS_PASSWORD}";\n')
    return str(path)


def _assert_clean(r):
    for secret in (PASSWORD, JAAS_PASSWORD, KEY_PASSWORD):
        assert secret not in r.stdout
        assert secret not in r.stderr


def test_no_secret_when_unreachable(tmp_path):
    r = run_kgroup("find-coordinator", "--command-config", _config(tmp_path, f"127.0.0.1:{free_port()}"),
                   "-X", f"sasl.password={PASSWORD}", "-v", "-X", "debug=all", "--timeout", "2", "G1")
    assert r.returncode == 3
    _assert_clean(r)


def test_no_secret_in_bad_usage(tmp_path):
    for args in (["-X", f"sasl.password{PASSWORD}"], ["-X", f"no.such.property={PASSWORD}"],
                 ["-X", f"sasl.password={PASSWORD}", "-X", "bogus=1"]):
        r = run_kgroup("find-coordinator", "-b", "127.0.0.1:9", *args, "G1")
        assert r.returncode == 2
        _assert_clean(r)
    bad = tmp_path / "bad.properties"
    bad.write_text(f"sasl.jaas.config=com.example.Custom required password=\"{PASSWORD}\";\n"
                   "sasl.mechanism=PLAIN\n")
    r = run_kgroup("find-coordinator", "--command-config", str(bad), "G1")
    assert r.returncode == 2 and "Custom" in r.stderr
    _assert_clean(r)


def test_short_secret_never_mangles_messages_or_shows_where_it_is():
    # a one-letter password: masking it in place would turn "reach" into "r[redacted]ach"
    r = run_kgroup("find-coordinator", "-b", f"127.0.0.1:{free_port()}", "-X", "sasl.password=e",
                   "--timeout", "2", "G1")
    assert r.returncode == 3
    assert "[redacted]" not in r.stderr and "cannot reach the cluster" in r.stderr
    assert r.stderr.startswith("kgroup: error: ") and len(r.stderr.splitlines()) == 1


def test_short_secret_as_a_value_masks_the_whole_line(tmp_path):
    from kgroup.kafka.settings import REDACTED_LINE, ConnectionSettings

    s = ConnectionSettings.build("h:1", ["sasl.password=ab1"], None, 5.0)
    assert s.redact("login ab1 refused\nother") == f"{REDACTED_LINE}\nother"
    assert s.redact("tab1e and cab1n") == "tab1e and cab1n"  # inside words: no secret shown
    long = ConnectionSettings.build("h:1", [f"sasl.password={PASSWORD}"], None, 5.0)
    assert long.redact(f"x{PASSWORD}y and {PASSWORD}.") == "[redacted] and [redacted]."


CLIENT_SECRET = "Oidc-Client-Secret-3c4d"
STORE_PASSWORD = "Store-Pw-8e9f"


def test_no_oauth_or_store_secret_when_unreachable(tmp_path):
    """Every property this release reads: the OIDC client secret (JAAS and -X), store and key passwords."""
    config = tmp_path / "oidc.properties"
    config.write_text(
        f"bootstrap.servers=127.0.0.1:{free_port()}\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        f"sasl.oauthbearer.token.endpoint.url=http://127.0.0.1:{free_port()}/token\n"
        "sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        f'clientId="app" clientSecret="{CLIENT_SECRET}" scope="kafka";\n'
        f"ssl.truststore.password={STORE_PASSWORD}\nssl.keystore.password={STORE_PASSWORD}\n")
    for extra in ([], ["-v", "-X", "debug=all"]):
        r = run_kgroup("offsets", "--all-groups", "--command-config", str(config), "--timeout", "2", *extra)
        assert r.returncode == 3 and "OAuth token endpoint" in r.stderr, r.stderr
        for secret in (CLIENT_SECRET, STORE_PASSWORD):
            assert secret not in r.stdout + r.stderr
    r = run_kgroup("offsets", "G1", "-b", f"127.0.0.1:{free_port()}", "-v", "--timeout", "2",
                   "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=OAUTHBEARER",
                   "-X", "sasl.oauthbearer.method=oidc", "-X", "sasl.oauthbearer.client.id=app",
                   "-X", f"sasl.oauthbearer.client.secret={CLIENT_SECRET}",
                   "-X", f"sasl.oauthbearer.token.endpoint.url=http://127.0.0.1:{free_port()}/token")
    assert r.returncode == 3 and CLIENT_SECRET not in r.stdout + r.stderr


def test_redaction_knows_the_new_secret_properties():
    from kgroup.kafka.settings import redact_patterns

    for key in ("ssl.truststore.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret", "clientSecret"):
        assert STORE_PASSWORD not in redact_patterns(f"{key}={STORE_PASSWORD}")
