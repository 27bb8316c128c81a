"""The --command-config translations of OIDC, Amazon MSK IAM and Kerberos, and the tokens: OIDC
lifetimes and refresh, the RFC 7628 first message, and MSK IAM through AWS's signer with only its
token function stubbed (no network, no credentials). Java stores: tests/differential/test_java_stores.py."""
from __future__ import annotations

import base64
import json
import time

import pytest

from kgroup.errors import UsageError
from kgroup.kafka.settings import ConnectionSettings, translate_java_config


def test_oidc_java_config_maps_to_librdkafkas_names():
    out = translate_java_config({
        "security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
        "sasl.login.callback.handler.class": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
                            'clientId="app" clientSecret="s3cr3t-X" scope="kafka.read" extension_team="ops" '
                            'extension_env="prod";'}, "f")
    assert out == {"security.protocol": "sasl_ssl", "sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
                   "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
                   "sasl.oauthbearer.client.id": "app", "sasl.oauthbearer.client.secret": "s3cr3t-X",
                   "sasl.oauthbearer.scope": "kafka.read", "sasl.oauthbearer.extensions": "team=ops,env=prod"}


@pytest.mark.parametrize("props, needle", [
    ({"sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config":
      "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"}, "token.endpoint.url"),
    ({"sasl.mechanism": "GSSAPI", "sasl.jaas.config":
      "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;"}, "sasl.kerberos"),
    ({"sasl.login.callback.handler.class": "com.example.Custom"}, "Custom"),
])
def test_what_cannot_be_translated_is_refused(props, needle):
    with pytest.raises(UsageError) as e:
        translate_java_config(props, "client.properties")
    assert needle in e.value.message


@pytest.mark.parametrize("props", [
    {"sasl.mechanism": "AWS_MSK_IAM", "sasl.jaas.config": "software.amazon.msk.auth.iam.IAMLoginModule required "
                                                          'awsProfileName="prod";',
     "sasl.client.callback.handler.class": "software.amazon.msk.auth.iam.IAMClientCallbackHandler"},
    {"sasl.mechanism": "OAUTHBEARER",
     "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
     "sasl.login.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
     "sasl.client.callback.handler.class": "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler"},
])
def test_msk_iam_java_configs_become_kgroups_token_provider(props):
    out = translate_java_config({"security.protocol": "SASL_SSL", **props}, "f")
    assert out["sasl.mechanisms"] == "OAUTHBEARER" and out["kgroup.sasl.oauthbearer.provider"] == "aws-msk-iam"
    assert out.get("kgroup.aws.profile") == ("prod" if "awsProfileName" in props["sasl.jaas.config"] else None)


def test_msk_iam_without_the_extra_says_how_to_install_it(monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "aws_msk_iam_sasl_signer", None)  # not installed
    config = tmp_path / "client.properties"
    config.write_text("sasl.mechanism=AWS_MSK_IAM\nsecurity.protocol=SASL_SSL\n"
                      "sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;\n")
    with pytest.raises(UsageError, match=r"pip install 'kgroup\[aws\]'"):
        ConnectionSettings.build("b-1.c.x.c2.kafka.eu-west-1.amazonaws.com:9098", [], config, 5.0)
    with pytest.raises(UsageError, match=r"pip install 'kgroup\[aws\]'"):
        ConnectionSettings.build("h:1", ["kgroup.sasl.oauthbearer.provider=aws-msk-iam"], None, 5.0)


def test_msk_iam_token_comes_from_the_signer_for_the_clusters_region(monkeypatch):
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

    calls = []
    expiry_ms = int((time.time() + 900) * 1000)

    def generate(region):  # the library's boundary: no credentials, no network
        calls.append(region)
        return "signed-token-AbC123", expiry_ms

    monkeypatch.setattr(MSKAuthTokenProvider, "generate_auth_token", generate)
    settings = ConnectionSettings.build("b-2.mycluster.abc123.c3.kafka.eu-central-1.amazonaws.com:9098",
                                        ["security.protocol=SASL_SSL", "kgroup.sasl.oauthbearer.provider=aws-msk-iam"],
                                        None, 5.0)
    assert settings.properties["sasl.mechanisms"] == "OAUTHBEARER"
    assert "kgroup.sasl.oauthbearer.provider" not in settings.properties  # never handed to librdkafka
    source = settings.token_source()
    assert source.token(5.0) == ("signed-token-AbC123", expiry_ms / 1000)
    assert source.token(5.0)[0] == "signed-token-AbC123" and calls == ["eu-central-1"]  # kept, not made again
    # librdkafka gets the same token through confluent-kafka's oauth_cb
    from kgroup.kafka.client import Client

    conf = Client(settings, "test-msk").config()
    assert conf["oauth_cb"]("") == ("signed-token-AbC123", expiry_ms / 1000)
    # and kgroup's own client sends it as RFC 7628's first message
    from kgroup.kafka.wire.security import security_of

    security = security_of(settings.properties, source)
    assert security.sasl.start(5.0).first() == b"n,,\x01auth=Bearer signed-token-AbC123\x01\x01"


def test_msk_iam_region_from_the_environment_or_refused(monkeypatch):
    from kgroup.kafka import oauth

    assert oauth.msk_region("broker:9098", {"AWS_REGION": "us-west-2"}) == "us-west-2"
    assert oauth.msk_region("broker:9098", {}) is None
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    settings = ConnectionSettings.build("broker:9098", ["kgroup.sasl.oauthbearer.provider=aws-msk-iam"], None, 5.0)
    with pytest.raises(UsageError, match="AWS region"):
        settings.token_source()


def test_msk_iam_without_credentials_is_bad_configuration(monkeypatch):
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

    def no_credentials(region):
        raise ValueError("AWS Credentials can not be empty")

    monkeypatch.setattr(MSKAuthTokenProvider, "generate_auth_token", no_credentials)
    from kgroup.kafka.oauth import MskIamTokens

    with pytest.raises(UsageError, match="no AWS credentials"):
        MskIamTokens("eu-west-1").token(5.0)


def _jwt(claims: dict) -> str:
    part = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJub25lIn0.{part}."


def test_oidc_token_lifetime_from_expires_in_else_the_jwts_exp(monkeypatch):
    from kgroup.kafka import oauth

    answers = []

    class Answer:
        def __init__(self, body):
            self.body = body

        def read(self, n):
            return self.body

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def urlopen(request, timeout, context):
        answers.append((request.get_header("Authorization"), request.data))
        return Answer(bodies.pop(0))

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    now = time.time()
    bodies = [json.dumps({"access_token": "t1", "expires_in": 100}).encode(),
              json.dumps({"access_token": _jwt({"exp": int(now) + 50})}).encode()]
    tokens = oauth.OidcTokens("http://idp/token", "app id", "p:w&", "kafka", {}, None, None)
    token, expires = tokens.token(5.0)
    assert token == "t1" and now + 99 <= expires <= time.time() + 100
    auth, body = answers[0]
    assert auth == "Basic " + base64.b64encode(b"app%20id:p%3Aw%26").decode()
    assert body == b"grant_type=client_credentials&scope=kafka"
    monkeypatch.setattr(time, "time", lambda: now + 81)  # past 80% of its 100 s: fetched anew
    assert tokens.token(5.0) == (_jwt({"exp": int(now) + 50}), float(int(now) + 50))


def test_oauthbearer_first_message_with_extensions():
    from kgroup.kafka.wire.security import _Bearer

    assert _Bearer("tok", {"team": "ops", "env": "prod"}).first() == \
        b"n,,\x01auth=Bearer tok\x01team=ops\x01env=prod\x01\x01"
