"""Connection settings shared by every command, and keeping secrets out of output.

Sources, weakest first: a Java-style ``--command-config`` file (translated to
librdkafka names), the bootstrap server (``-b``, else the file, else
``KGROUP_BOOTSTRAP_SERVERS``), then ``-X key=value`` librdkafka properties.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgroup.errors import UsageError

if TYPE_CHECKING:
    from kgroup.kafka.oauth import TokenSource

BOOTSTRAP_ENV = "KGROUP_BOOTSTRAP_SERVERS"
REDACTED = "[redacted]"

# Java client key -> librdkafka key, for keys whose values carry over unchanged.
_SAME_MEANING = {
    "bootstrap.servers": "bootstrap.servers",
    "client.id": "client.id",
    "sasl.mechanism": "sasl.mechanisms",
    "ssl.key.password": "ssl.key.password",
    "ssl.keystore.certificate.chain": "ssl.certificate.pem",
    "ssl.keystore.key": "ssl.key.pem",
    "ssl.truststore.certificates": "ssl.ca.pem",
    "sasl.kerberos.service.name": "sasl.kerberos.service.name",
    "socket.connection.setup.timeout.ms": "socket.connection.setup.timeout.ms",
    "metadata.max.age.ms": "metadata.max.age.ms",
    "reconnect.backoff.ms": "reconnect.backoff.ms",
    "reconnect.backoff.max.ms": "reconnect.backoff.max.ms",
    "retry.backoff.ms": "retry.backoff.ms",
}
# Java-only keys that have no effect on what kgroup does: accepted and dropped.
_IGNORED = {
    "request.timeout.ms",  # kgroup's --timeout governs every request
    "default.api.timeout.ms",
    "ssl.protocol",
    "ssl.enabled.protocols",
    "ssl.truststore.type",  # read with ssl.truststore.location
    "ssl.keystore.type",  # read with ssl.keystore.location
    "ssl.truststore.password",  # read with ssl.truststore.location
    "ssl.keystore.password",  # read with ssl.keystore.location
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "sasl.login.class",
    # OAuth: kgroup fetches and refreshes tokens itself (kgroup.kafka.oauth), librdkafka too
    "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter",
    "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds",
    "sasl.login.connect.timeout.ms",
    "sasl.login.read.timeout.ms",
    "sasl.login.retry.backoff.ms",
    "sasl.login.retry.backoff.max.ms",
    "sasl.oauthbearer.scope.claim.name",  # the broker's side of a token
    "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.header.urlencode",
}
# Patterns are compiled on first use (re caches them): an offline command never needs them.
_SECRET_KEY = r"(?i)password|secret|jaas|(^|\.)key(\.pem)?$|\.pem$|credentials|token"

_JAAS = r"(?s)^\s*(?P<module>[\w.$]+)\s+(?P<flag>required|requisite|sufficient|optional)(?P<opts>.*?);?\s*$"
_JAAS_OPT = r"""(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s;]+))"""
_PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
_SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_OAUTH_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
_MSK_MODULE = "software.amazon.msk.auth.iam.IAMLoginModule"
# Kafka's login callback handler for OIDC client credentials (4.x name, and the 3.x one)
_OIDC_HANDLERS = {"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                  "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"}
_MSK_HANDLERS = {"software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
                 "software.amazon.msk.auth.iam.IAMClientCallbackHandler"}

# -X properties of kgroup's own: read by kgroup, never passed to librdkafka
BATCHED = "kgroup.batched"
TOKEN_PROVIDER = "kgroup.sasl.oauthbearer.provider"  # aws-msk-iam: tokens from AWS's MSK signer
AWS_REGION = "kgroup.aws.region"
AWS_PROFILE = "kgroup.aws.profile"
AWS_ROLE_ARN = "kgroup.aws.role.arn"
MSK_IAM = "aws-msk-iam"
_OWN = (TOKEN_PROVIDER, AWS_REGION, AWS_PROFILE, AWS_ROLE_ARN)


def is_secret_key(key: str) -> bool:
    return bool(re.search(_SECRET_KEY, key))


def parse_properties(text: str) -> dict[str, str]:
    """Parse a Java ``.properties`` file: ``key=value`` / ``key: value`` / ``key value``,
    ``#``/``!`` comments, backslash line continuations and escapes."""
    props: dict[str, str] = {}
    logical: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line) and i < len(lines):
            line = line[:-1] + lines[i].lstrip()
            i += 1
        logical.append(line)
    for line in logical:
        m = re.match(r"((?:[^=:\s\\]|\\.)+)\s*[=:\s]\s*(.*)$", line, re.S)
        if m:
            key, value = m.group(1), m.group(2)
        else:
            key, value = line, ""
        props[_unescape(key)] = _unescape(value).strip() if value else ""
    return props


def _continues(line: str) -> bool:
    backslashes = len(line) - len(line.rstrip("\\"))
    return backslashes % 2 == 1


def _unescape(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[i + 2:i + 6]):
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def translate_java_config(props: dict[str, str], source: str) -> dict[str, str]:
    """Translate Java client properties to librdkafka properties (and kgroup's own), refusing
    what has no faithful translation with a message saying what to use instead. JKS and PKCS12
    stores are read here (kgroup.kafka.stores) and handed on as PEM text in memory."""
    out: dict[str, str] = {}
    jaas: dict[str, str] = {}
    for key, value in props.items():
        if key in _SAME_MEANING:
            out[_SAME_MEANING[key]] = value
        elif key == "security.protocol":
            allowed = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}
            if value.upper() not in allowed:
                raise UsageError(f"{source}: security.protocol must be one of {', '.join(sorted(allowed))}")
            out["security.protocol"] = value.lower()
        elif key == "sasl.jaas.config":
            jaas = _translate_jaas(value, props, source)
        elif key == "ssl.endpoint.identification.algorithm":
            out[key] = "https" if value.strip().lower() == "https" else "none"
        elif key == "ssl.truststore.location":
            kind = props.get("ssl.truststore.type", "JKS").upper()
            if kind == "PEM":
                out["ssl.ca.location"] = value
            elif kind in ("JKS", "PKCS12"):
                from kgroup.kafka.stores import truststore_pem

                out["ssl.ca.pem"] = _in(source, truststore_pem, value, props.get("ssl.truststore.password") or None)
            else:
                raise UsageError(f"{source}: ssl.truststore.type {kind} cannot be read (JKS, PKCS12 or PEM can); "
                                 "export the CA certificate to PEM and pass -X ssl.ca.location=ca.pem")
        elif key == "ssl.keystore.location":
            kind = props.get("ssl.keystore.type", "JKS").upper()
            if kind == "PEM":
                out["ssl.certificate.location"] = value
                out["ssl.key.location"] = value
            elif kind in ("JKS", "PKCS12"):
                from kgroup.kafka.stores import keystore_pem

                chain, private = _in(source, keystore_pem, value, props.get("ssl.keystore.password") or None,
                                     props.get("ssl.key.password") or None)
                out["ssl.certificate.pem"], out["ssl.key.pem"] = chain, private
            else:
                raise UsageError(f"{source}: ssl.keystore.type {kind} cannot be read (JKS, PKCS12 or PEM can); "
                                 "pass -X ssl.certificate.location=... -X ssl.key.location=...")
        elif key in ("sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.scope",
                     "sasl.oauthbearer.client.credentials.client.id",
                     "sasl.oauthbearer.client.credentials.client.secret"):
            continue  # read with sasl.jaas.config's OAuthBearerLoginModule
        elif key == "sasl.login.callback.handler.class":
            if value.strip() not in _OIDC_HANDLERS | _MSK_HANDLERS:
                raise UsageError(f"{source}: sasl.login.callback.handler.class {value.strip()} cannot be translated; "
                                 "kgroup speaks Kafka's OAuthBearerLoginCallbackHandler (OIDC client credentials) "
                                 "and Amazon MSK's IAMOAuthBearerLoginCallbackHandler")
        elif key == "sasl.client.callback.handler.class":
            if value.strip() not in _MSK_HANDLERS:
                raise UsageError(f"{source}: sasl.client.callback.handler.class {value.strip()} cannot be "
                                 "translated; kgroup speaks Amazon MSK's IAM handlers only")
        elif key in _IGNORED:
            continue
        else:
            raise UsageError(
                f"{source}: cannot translate Java client property '{key}' to librdkafka; "
                "remove it, or pass the librdkafka equivalent with -X key=value")
    out.update(jaas)  # over sasl.mechanism's own translation (AWS_MSK_IAM is OAUTHBEARER to librdkafka)
    if "ssl.key.pem" in out and "ssl.keystore.location" in props:
        out.pop("ssl.key.password", None)  # the key was opened with it and is handed on unencrypted
    return out


def _in(source: str, read, *args):  # type: ignore[no-untyped-def]
    """``read(*args)`` (a store reader) with ``source`` named in its UsageError."""
    try:
        return read(*args)
    except UsageError as e:
        raise UsageError(f"{source}: {e.message}") from None


def _jaas_options(text: str) -> dict[str, str]:
    return {o.group(1): _unescape(next(v for v in o.groups()[1:] if v is not None))
            for o in re.finditer(_JAAS_OPT, text)}


def _translate_jaas(value: str, props: Mapping[str, str], source: str) -> dict[str, str]:
    mechanism = props.get("sasl.mechanism", "GSSAPI")
    m = re.match(_JAAS, value)
    if not m:
        raise UsageError(f"{source}: sasl.jaas.config is not of the form '<LoginModule> required key=\"value\" ...;'")
    module = m.group("module")
    opts = _jaas_options(m.group("opts"))
    mech = mechanism.upper()
    handler = props.get("sasl.login.callback.handler.class", "").strip()
    if module == _MSK_MODULE or (module == _OAUTH_MODULE and handler in _MSK_HANDLERS):
        if mech not in ("AWS_MSK_IAM", "OAUTHBEARER"):
            raise UsageError(f"{source}: sasl.jaas.config uses Amazon MSK's IAM login but sasl.mechanism is "
                             f"{mechanism}; set sasl.mechanism=AWS_MSK_IAM")
        from kgroup.kafka.oauth import require_aws_signer

        try:
            require_aws_signer()
        except UsageError as e:
            raise UsageError(f"{source}: {e.message}") from None
        out = {"sasl.mechanisms": "OAUTHBEARER", TOKEN_PROVIDER: MSK_IAM}
        if opts.get("awsProfileName"):
            out[AWS_PROFILE] = opts["awsProfileName"]
        if opts.get("awsRoleArn"):
            out[AWS_ROLE_ARN] = opts["awsRoleArn"]
        return out
    if module == _OAUTH_MODULE:
        if mech != "OAUTHBEARER":
            raise UsageError(f"{source}: sasl.jaas.config uses OAuthBearerLoginModule but sasl.mechanism is "
                             f"{mechanism}; set sasl.mechanism=OAUTHBEARER")
        url = props.get("sasl.oauthbearer.token.endpoint.url", "").strip()
        if not url:
            raise UsageError(f"{source}: OAuthBearerLoginModule without sasl.oauthbearer.token.endpoint.url "
                             "(Kafka's unsecured test tokens) cannot be translated; kgroup speaks OIDC client "
                             "credentials (sasl.oauthbearer.token.endpoint.url with clientId and clientSecret)")
        if handler and handler not in _OIDC_HANDLERS:
            raise UsageError(f"{source}: sasl.login.callback.handler.class {handler} cannot be translated")
        client_id = opts.get("clientId") or props.get("sasl.oauthbearer.client.credentials.client.id")
        secret = opts.get("clientSecret") or props.get("sasl.oauthbearer.client.credentials.client.secret")
        if not client_id or secret is None:
            raise UsageError(f"{source}: sasl.jaas.config's OAuthBearerLoginModule has no clientId and clientSecret")
        out = {"sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
               "sasl.oauthbearer.token.endpoint.url": url, "sasl.oauthbearer.client.id": client_id,
               "sasl.oauthbearer.client.secret": secret}
        scope = opts.get("scope") or props.get("sasl.oauthbearer.scope")
        if scope:
            out["sasl.oauthbearer.scope"] = scope
        extensions = [(k[len("extension_"):], v) for k, v in opts.items() if k.startswith("extension_")]
        if any("," in k + v or "=" in k for k, v in extensions):
            raise UsageError(f"{source}: an OAuth extension holds ',' or '=', which librdkafka cannot take")
        if extensions:
            out["sasl.oauthbearer.extensions"] = ",".join(f"{k}={v}" for k, v in extensions)
        return out
    if module not in (_PLAIN_MODULE, _SCRAM_MODULE):
        short = module.rsplit(".", 1)[-1]
        kerberos = module.endswith("Krb5LoginModule") or mech == "GSSAPI"
        raise UsageError(
            f"{source}: sasl.jaas.config uses {short}, which kgroup cannot translate; "
            "kgroup translates PlainLoginModule and ScramLoginModule (username/password), OAuthBearerLoginModule "
            "(OIDC client credentials) and Amazon MSK's IAM login"
            + ("; for Kerberos pass librdkafka's sasl.kerberos.* properties with -X (-X sasl.mechanisms=GSSAPI "
               "-X sasl.kerberos.keytab=... -X sasl.kerberos.principal=...)" if kerberos else ""))
    if module == _PLAIN_MODULE and mech != "PLAIN":
        raise UsageError(f"{source}: sasl.jaas.config uses PlainLoginModule but sasl.mechanism is {mechanism}; "
                         "set sasl.mechanism=PLAIN")
    if module == _SCRAM_MODULE and mech not in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        raise UsageError(f"{source}: sasl.jaas.config uses ScramLoginModule but sasl.mechanism is {mechanism}; "
                         "set sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512")
    missing = [k for k in ("username", "password") if k not in opts]
    if missing:
        raise UsageError(f"{source}: sasl.jaas.config has no {' and '.join(missing)}")
    return {"sasl.username": opts["username"], "sasl.password": opts["password"]}


def parse_x_options(items: list[str]) -> dict[str, str]:
    """``-X key=value`` as kcat takes them."""
    out: dict[str, str] = {}
    for position, item in enumerate(items, 1):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            # never echo the argument: it may hold a secret
            raise UsageError(f"-X expects key=value; -X number {position} has no key=value form")
        out[key.strip()] = value
    return out


def _switch(key: str, value: str) -> bool:
    """The value of an -X property of kgroup's own that is true or false."""
    if value.strip().lower() not in ("true", "false"):
        raise UsageError(f"-X {key} takes true or false")
    return value.strip().lower() == "true"


MAX_TIMEOUT = 3600.0


def check_timeout(timeout: float) -> float:
    """--timeout as given, when it is a finite number of seconds in (0, 3600]."""
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        raise UsageError(f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:g} "
                         f"(got {timeout:g})" if isinstance(timeout, (int, float)) else "--timeout must be a number")
    return timeout


@dataclass
class ConnectionSettings:
    """Everything needed to talk to a cluster, with librdkafka property names."""

    properties: dict[str, str]
    timeout: float = 10.0
    verbose: bool = False
    secrets: list[str] = field(default_factory=list)
    # -X kgroup.batched: may questions about many groups go through kgroup's batched client
    # (kgroup.kafka.routing)? A property of kgroup's own, kept out of ``properties``.
    batched: bool = True
    # kgroup's own -X properties other than kgroup.batched (MSK IAM: kgroup.sasl.oauthbearer.provider,
    # kgroup.aws.*), kept out of ``properties``
    own: dict[str, str] = field(default_factory=dict)
    _tokens: Any = field(default=None, repr=False, compare=False)

    @property
    def makes_tokens(self) -> bool:
        """Whether kgroup makes the OAUTHBEARER tokens itself (Amazon MSK IAM) for both clients."""
        return self.own.get(TOKEN_PROVIDER, "").strip().lower() == MSK_IAM

    def token_source(self) -> TokenSource | None:
        """Where OAUTHBEARER tokens come from for kgroup's own client (and, for MSK IAM, for
        librdkafka's oauth_cb); None without OAUTHBEARER. Made once."""
        if self._tokens is None:
            self._tokens = self._make_token_source() or False
        return self._tokens or None

    def _make_token_source(self) -> TokenSource | None:
        from kgroup.kafka import oauth

        props = self.properties
        if self.makes_tokens:
            region = self.own.get(AWS_REGION) or oauth.msk_region(self.bootstrap or "", os.environ)
            if not region:
                raise UsageError("Amazon MSK IAM login: cannot tell the AWS region from the bootstrap servers; "
                                 f"set AWS_REGION or -X {AWS_REGION}=REGION")
            return oauth.MskIamTokens(region, self.own.get(AWS_PROFILE), self.own.get(AWS_ROLE_ARN))
        mechanism = props.get("sasl.mechanisms", props.get("sasl.mechanism", "")).strip().upper()
        if mechanism != "OAUTHBEARER" or props.get("sasl.oauthbearer.method", "").strip().lower() != "oidc":
            return None
        url = props.get("sasl.oauthbearer.token.endpoint.url", "").strip()
        client_id = props.get("sasl.oauthbearer.client.id", "")
        if not url or not client_id:
            raise UsageError("sasl.oauthbearer.method=oidc needs sasl.oauthbearer.token.endpoint.url and "
                             "sasl.oauthbearer.client.id (and .client.secret)")
        return oauth.OidcTokens(url, client_id, props.get("sasl.oauthbearer.client.secret", ""),
                                props.get("sasl.oauthbearer.scope") or None,
                                oauth.parse_extensions(props.get("sasl.oauthbearer.extensions", "")),
                                props.get("https.ca.location") or None, props.get("https.ca.pem") or None)

    @property
    def bootstrap(self) -> str | None:
        return self.properties.get("bootstrap.servers")

    @classmethod
    def build(cls, bootstrap: str | None, x_options: list[str], command_config: Path | None,
              timeout: float, verbose: bool = False, environ: Mapping[str, str] | None = None) -> "ConnectionSettings":
        env: Mapping[str, str] = os.environ if environ is None else environ
        props: dict[str, str] = {}
        if command_config is not None:
            try:
                text = Path(command_config).read_text(encoding="utf-8")
            except OSError as e:
                raise UsageError(f"cannot read --command-config {command_config}: {e.strerror or e}") from None
            except UnicodeDecodeError:
                raise UsageError(f"cannot read --command-config {command_config}: not UTF-8 text") from None
            props.update(translate_java_config(parse_properties(text), str(command_config)))
        if bootstrap:
            props["bootstrap.servers"] = bootstrap
        elif "bootstrap.servers" not in props and env.get(BOOTSTRAP_ENV):
            props["bootstrap.servers"] = env[BOOTSTRAP_ENV]
        props.update(parse_x_options(x_options))
        batched = _switch(BATCHED, props.pop(BATCHED, "true"))
        own = {k: props.pop(k) for k in _OWN if k in props}
        if own.get(TOKEN_PROVIDER, MSK_IAM).strip().lower() != MSK_IAM:
            raise UsageError(f"-X {TOKEN_PROVIDER} takes {MSK_IAM}")
        if TOKEN_PROVIDER in own:
            from kgroup.kafka.oauth import require_aws_signer

            require_aws_signer()
            props["sasl.mechanisms"] = "OAUTHBEARER"
        check_timeout(timeout)
        return cls(properties=props, timeout=timeout, verbose=verbose, secrets=secrets_of(props),
                   batched=batched, own=own)

    def to_json(self) -> str:
        """The settings as JSON text, for a process of kgroup's own that needs the same cluster
        (kgroup scan's read tasks on Spark executors); it holds the secrets, so whatever carries
        it must keep it from view (scan passes it under an option name Spark redacts)."""
        import json

        return json.dumps({"properties": self.properties, "timeout": self.timeout, "verbose": self.verbose,
                           "secrets": self.secrets, "batched": self.batched, "own": self.own})

    @classmethod
    def from_json(cls, text: str) -> "ConnectionSettings":
        """The settings :meth:`to_json` wrote."""
        import json

        d = json.loads(text)
        return cls(properties=dict(d["properties"]), timeout=float(d["timeout"]), verbose=bool(d["verbose"]),
                   secrets=list(d["secrets"]), batched=bool(d.get("batched", True)), own=dict(d.get("own", {})))

    def require_bootstrap(self) -> str:
        if not self.bootstrap:
            raise UsageError(f"no bootstrap server: pass -b HOST:PORT, set {BOOTSTRAP_ENV}, "
                             "or put bootstrap.servers in --command-config")
        return self.bootstrap

    def redact(self, text: str) -> str:
        """``text`` with every secret value (and JAAS-looking fragments) masked, line by line.

        Nothing is masked inside a word: a secret that stands as a value is replaced, a word
        that holds a secret is replaced whole (a password ``e`` must not turn "reach" into
        "r[redacted]ach" and so tell where it is). A secret shorter than MIN_MASKED_SECRET
        characters is never masked in place: a line where it stands as a value is masked
        whole, and one where it is only part of words keeps them (they tell nothing)."""
        if not self.secrets:
            return redact_patterns(text)
        return "\n".join(self._redact_line(line) for line in text.split("\n"))

    def _redact_line(self, line: str) -> str:
        for secret in self.secrets:
            if len(secret) < MIN_MASKED_SECRET:
                if _standalone(secret).search(line):
                    return REDACTED_LINE
            else:
                line = _with_its_word(secret).sub(REDACTED, line)
        return redact_patterns(line)


def secrets_of(props: Mapping[str, str]) -> list[str]:
    """The values to mask in any output, longest first: every secret property's value, and each
    line of a secret that spans lines (a key in PEM), so a line of it printed alone is masked too."""
    found = set()
    for key, value in props.items():
        if is_secret_key(key) and value:
            found.add(value)
            if "\n" in value:
                found.update(line.strip() for line in value.splitlines()
                             if len(line.strip()) >= 16 and not line.startswith("-----"))
    return sorted(found, key=len, reverse=True)


# A secret shorter than this is never masked in place: the whole line goes instead.
MIN_MASKED_SECRET = 4
REDACTED_LINE = "[line redacted: it held a secret too short to mask in place]"


def _standalone(secret: str) -> "re.Pattern[str]":
    """The secret where it stands alone: not preceded or followed by a letter or digit."""
    return re.compile(r"(?<![^\W_])" + re.escape(secret) + r"(?![^\W_])")


def _with_its_word(secret: str) -> "re.Pattern[str]":
    """The secret with the letters and digits that glue it into a longer word."""
    return re.compile(r"[^\W_]*" + re.escape(secret) + r"[^\W_]*")


_SECRET_PATTERNS = [
    r"(?i)(password\s*=\s*)(\"[^\"]*\"|'[^']*'|[^\s;,]+)",
    r"(?i)((?:sasl\.password|ssl\.key\.password|ssl\.keystore\.password|ssl\.truststore\.password|"
    r"sasl\.jaas\.config|sasl\.oauthbearer\.client\.secret|ssl\.key\.pem|clientSecret)\s*[=:]\s*)(\S+)",
]


def redact_patterns(text: str) -> str:
    for pattern in _SECRET_PATTERNS:
        text = re.sub(pattern, lambda m: m.group(1) + REDACTED, text)
    return text
