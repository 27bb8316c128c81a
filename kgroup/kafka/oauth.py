"""OAUTHBEARER tokens: from an OIDC token endpoint (client credentials), or for Amazon MSK's IAM
login from AWS's own signer library (the optional extra ``kgroup[aws]``).

librdkafka fetches OIDC tokens itself (``sasl.oauthbearer.method=oidc``); kgroup's own client
(kgroup.kafka.wire) fetches them here, with the same properties. An MSK IAM token is made here
for both: librdkafka asks for it through confluent-kafka's ``oauth_cb``.

The token endpoint is asked over HTTPS with the client id and secret in an HTTP Basic
authorization header (as Kafka's Java client and librdkafka send them), ``grant_type=
client_credentials`` and the scope in the form body. Its certificate is checked against
``https.ca.location`` / ``https.ca.pem`` where given, else against the system's store (as Java
does: its login handler uses the JVM's default truststore, not the cluster's).

A token is used until 80% of its lifetime (``expires_in``, else the JWT's ``exp``) has passed,
then fetched anew. A token never reaches any output: errors name the endpoint and the cause.
"""
from __future__ import annotations

import base64
import json
import re
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from kgroup.errors import TokenUnavailable, UsageError

REFRESH_AT = 0.8  # of a token's lifetime
_MAX_ANSWER = 1 << 20
AWS_EXTRA = "pip install 'kgroup[aws]'"
# an MSK broker's host name: b-1.NAME.ID.c2.kafka.REGION.amazonaws.com (serverless: kafka-serverless)
_MSK_HOST = r"\.kafka(?:-serverless)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com(?:\.cn)?$"


class TokenSource(Protocol):
    """Where OAUTHBEARER tokens come from."""

    def token(self, timeout: float) -> tuple[str, float]:
        """(token, when it expires as seconds since the epoch), fetched or made within ``timeout``."""

    @property
    def extensions(self) -> dict[str, str]:
        """SASL extensions (RFC 7628) sent with the token."""


class _Cached:
    """A token kept until REFRESH_AT of its lifetime has passed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token: tuple[str, float, float] | None = None  # token, expiry (epoch s), refresh at (epoch s)

    def token(self, timeout: float) -> tuple[str, float]:
        with self._lock:
            now = time.time()
            if self._token is None or now >= self._token[2]:
                token, expires = self._fetch(timeout)
                self._token = (token, expires, now + max(0.0, expires - now) * REFRESH_AT)
            return self._token[0], self._token[1]

    def _fetch(self, timeout: float) -> tuple[str, float]:
        raise NotImplementedError


def jwt_expiry(token: str) -> float | None:
    """The ``exp`` claim (seconds since the epoch) of a JWT, None when it is not a JWT with one."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None


def parse_extensions(text: str) -> dict[str, str]:
    """librdkafka's ``sasl.oauthbearer.extensions``: ``key=value,key=value``."""
    out = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z]+", key.strip()):
            raise UsageError("sasl.oauthbearer.extensions must be key=value pairs separated by commas "
                             "(keys of letters only)")
        out[key.strip()] = value
    return out


class OidcTokens(_Cached):
    """Tokens from an OIDC token endpoint (the client credentials grant)."""

    def __init__(self, url: str, client_id: str, client_secret: str, scope: str | None,
                 extensions: Mapping[str, str], ca_file: str | None, ca_pem: str | None) -> None:
        super().__init__()
        if not url.lower().startswith(("https://", "http://")):
            raise UsageError("sasl.oauthbearer.token.endpoint.url must be an https:// (or http://) URL")
        self.url = url
        self._client_id = client_id
        self._client_secret = client_secret
        self._scope = scope
        self._extensions = dict(extensions)
        self._ca_file = ca_file
        self._ca_pem = ca_pem

    @property
    def extensions(self) -> dict[str, str]:
        return self._extensions

    def _context(self) -> ssl.SSLContext:
        context = ssl.create_default_context()
        try:
            if self._ca_file or self._ca_pem:
                context = ssl.create_default_context(cafile=self._ca_file, cadata=self._ca_pem)
        except (OSError, ssl.SSLError) as e:
            raise UsageError(f"cannot read the token endpoint's CA (https.ca.location/https.ca.pem): "
                             f"{getattr(e, 'strerror', None) or e}") from None
        return context

    def _fetch(self, timeout: float) -> tuple[str, float]:
        import socket
        import urllib.error
        import urllib.parse
        import urllib.request

        form = {"grant_type": "client_credentials"}
        if self._scope:
            form["scope"] = self._scope
        basic = base64.b64encode(f"{urllib.parse.quote(self._client_id, safe='')}:"
                                 f"{urllib.parse.quote(self._client_secret, safe='')}".encode()).decode()
        request = urllib.request.Request(self.url, data=urllib.parse.urlencode(form).encode(), method="POST", headers={
            "Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json"})
        where = f"the OAuth token endpoint {self.url}"
        context = self._context() if self.url.lower().startswith("https://") else None
        try:
            with urllib.request.urlopen(request, timeout=max(0.1, timeout), context=context) as answer:  # noqa: S310
                body = answer.read(_MAX_ANSWER + 1)
        except urllib.error.HTTPError as e:
            raise TokenUnavailable(f"{where} refused to issue a token (HTTP {e.code} {e.reason})") from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, ssl.SSLCertVerificationError):
                raise TokenUnavailable(f"{where}: its certificate is not trusted ({reason.verify_message}; "
                                       "set https.ca.location to its CA)") from None
            raise TokenUnavailable(f"cannot reach {where} ({getattr(reason, 'strerror', None) or reason})") from None
        except (socket.timeout, TimeoutError):
            raise TokenUnavailable(f"{where} did not answer within {timeout:.3g} s") from None
        except (OSError, ValueError) as e:
            raise TokenUnavailable(f"cannot get a token from {where} ({type(e).__name__})") from None
        try:
            answer_json = json.loads(body) if len(body) <= _MAX_ANSWER else None
        except (ValueError, UnicodeDecodeError):
            answer_json = None
        token = answer_json.get("access_token") if isinstance(answer_json, dict) else None
        if not isinstance(token, str) or not token or any(c.isspace() or c == "\x01" for c in token):
            raise TokenUnavailable(f"{where} answered no access token (not JSON with an access_token)")
        expires_in = answer_json.get("expires_in") if isinstance(answer_json, dict) else None
        if isinstance(expires_in, str) and expires_in.isdigit():
            expires_in = int(expires_in)
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) and expires_in > 0:
            return token, time.time() + float(expires_in)
        expiry = jwt_expiry(token)
        if expiry is None:
            raise TokenUnavailable(f"{where} answered a token with no lifetime (no expires_in, not a JWT with exp)")
        return token, expiry


def msk_region(bootstrap: str, environ: Mapping[str, str]) -> str | None:
    """The AWS region of an MSK cluster: from its brokers' host names, else AWS_REGION /
    AWS_DEFAULT_REGION."""
    for server in bootstrap.split(","):
        host = server.strip().rpartition("://")[2].rsplit(":", 1)[0]
        m = re.search(_MSK_HOST, host.lower())
        if m:
            return m.group(1)
    return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or None


def require_aws_signer() -> None:
    """UsageError (exit 2) when AWS's MSK signer library is not installed."""
    try:
        import aws_msk_iam_sasl_signer  # noqa: F401
    except ImportError:
        raise UsageError(f"Amazon MSK IAM login needs AWS's signer library: {AWS_EXTRA}") from None


class MskIamTokens(_Cached):
    """Tokens for Amazon MSK's IAM login, made by AWS's signer library from the usual credentials
    chain (or a named profile, or a role to assume)."""

    def __init__(self, region: str, profile: str | None = None, role_arn: str | None = None) -> None:
        super().__init__()
        require_aws_signer()
        self.region = region
        self.profile = profile
        self.role_arn = role_arn

    @property
    def extensions(self) -> dict[str, str]:
        return {}

    def _fetch(self, timeout: float) -> tuple[str, float]:
        from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

        try:
            if self.role_arn:
                token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_role_arn(self.region, self.role_arn)
            elif self.profile:
                token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_profile(self.region, self.profile)
            else:
                token, expiry_ms = MSKAuthTokenProvider.generate_auth_token(self.region)
        except (AttributeError, ValueError):
            # the signer's way of saying that the credentials chain found nothing
            raise UsageError("Amazon MSK IAM login: no AWS credentials found (environment, ~/.aws, "
                             "instance or task role)") from None
        except Exception as e:  # botocore's errors (profile not found, role not assumable, no network)
            raise TokenUnavailable(f"Amazon MSK IAM login: cannot make a token ({type(e).__name__})") from None
        if not isinstance(token, str) or not token:
            raise TokenUnavailable("Amazon MSK IAM login: the signer made no token")
        return token, float(expiry_ms) / 1000.0


def oauth_cb(source: TokenSource, timeout: float) -> Callable[[str], tuple[str, float]]:
    """confluent-kafka's ``oauth_cb`` for ``source``: ``(token, expiry in seconds since the epoch)``."""
    def callback(_config: str) -> tuple[str, float]:
        return source.token(timeout)
    return callback
