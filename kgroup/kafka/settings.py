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

from kgroup.errors import UsageError

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
    "ssl.truststore.type",  # checked where a truststore location is given
    "ssl.keystore.type",
    "ssl.truststore.password",  # only meaningful for JKS/PKCS12 truststores, refused below
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "sasl.login.class",
}
# Patterns are compiled on first use (re caches them): an offline command never needs them.
_SECRET_KEY = r"(?i)password|secret|jaas|(^|\.)key(\.pem)?$|\.pem$|credentials|token"

_JAAS = r"(?s)^\s*(?P<module>[\w.$]+)\s+(?P<flag>required|requisite|sufficient|optional)(?P<opts>.*?);?\s*$"
_JAAS_OPT = r"""(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s;]+))"""
_PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
_SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"


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
    """Translate Java client properties to librdkafka properties, refusing what
    has no faithful translation with a message saying what to use instead."""
    out: dict[str, str] = {}
    for key, value in props.items():
        if key in _SAME_MEANING:
            out[_SAME_MEANING[key]] = value
        elif key == "security.protocol":
            allowed = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}
            if value.upper() not in allowed:
                raise UsageError(f"{source}: security.protocol must be one of {', '.join(sorted(allowed))}")
            out["security.protocol"] = value.lower()
        elif key == "sasl.jaas.config":
            out.update(_translate_jaas(value, props.get("sasl.mechanism", "GSSAPI"), source))
        elif key == "ssl.endpoint.identification.algorithm":
            out[key] = "https" if value.strip().lower() == "https" else "none"
        elif key == "ssl.truststore.location":
            kind = props.get("ssl.truststore.type", "JKS").upper()
            if kind != "PEM":
                raise UsageError(
                    f"{source}: ssl.truststore.location is a {kind} truststore, which librdkafka cannot read; "
                    "export the CA certificate to PEM (keytool -exportcert -rfc -keystore FILE -alias ALIAS) "
                    "and set ssl.truststore.type=PEM, or pass -X ssl.ca.location=ca.pem")
            out["ssl.ca.location"] = value
        elif key == "ssl.keystore.location":
            kind = props.get("ssl.keystore.type", "JKS").upper()
            if kind == "PKCS12":
                out["ssl.keystore.location"] = value
                if "ssl.keystore.password" in props:
                    out["ssl.keystore.password"] = props["ssl.keystore.password"]
            elif kind == "PEM":
                out["ssl.certificate.location"] = value
                out["ssl.key.location"] = value
            else:
                raise UsageError(
                    f"{source}: ssl.keystore.location is a {kind} keystore, which librdkafka cannot read; "
                    "convert it to PKCS12 (keytool -importkeystore -deststoretype PKCS12) and set "
                    "ssl.keystore.type=PKCS12, or pass -X ssl.certificate.location=... -X ssl.key.location=...")
        elif key == "ssl.keystore.password":
            continue  # consumed with ssl.keystore.location
        elif key in _IGNORED:
            continue
        else:
            raise UsageError(
                f"{source}: cannot translate Java client property '{key}' to librdkafka; "
                "remove it, or pass the librdkafka equivalent with -X key=value")
    return out


def _translate_jaas(value: str, mechanism: str, source: str) -> dict[str, str]:
    m = re.match(_JAAS, value)
    if not m:
        raise UsageError(f"{source}: sasl.jaas.config is not of the form '<LoginModule> required key=\"value\" ...;'")
    module = m.group("module")
    if module not in (_PLAIN_MODULE, _SCRAM_MODULE):
        short = module.rsplit(".", 1)[-1]
        raise UsageError(
            f"{source}: sasl.jaas.config uses {short}, which kgroup cannot translate; "
            "only PlainLoginModule and ScramLoginModule (username/password) are; for Kerberos or OAUTHBEARER "
            "pass librdkafka's sasl.kerberos.* or sasl.oauthbearer.* properties with -X")
    mech = mechanism.upper()
    if module == _PLAIN_MODULE and mech != "PLAIN":
        raise UsageError(f"{source}: sasl.jaas.config uses PlainLoginModule but sasl.mechanism is {mechanism}; "
                         "set sasl.mechanism=PLAIN")
    if module == _SCRAM_MODULE and mech not in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        raise UsageError(f"{source}: sasl.jaas.config uses ScramLoginModule but sasl.mechanism is {mechanism}; "
                         "set sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512")
    opts = {o.group(1): next(v for v in o.groups()[1:] if v is not None)
            for o in re.finditer(_JAAS_OPT, m.group("opts"))}
    missing = [k for k in ("username", "password") if k not in opts]
    if missing:
        raise UsageError(f"{source}: sasl.jaas.config has no {' and '.join(missing)}")
    return {"sasl.username": _unescape(opts["username"]), "sasl.password": _unescape(opts["password"])}


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


# -X properties of kgroup's own: read by kgroup, never passed to librdkafka
BATCHED = "kgroup.batched"


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
        check_timeout(timeout)
        secrets = sorted({v for k, v in props.items() if is_secret_key(k) and v}, key=len, reverse=True)
        return cls(properties=props, timeout=timeout, verbose=verbose, secrets=secrets, batched=batched)

    def to_json(self) -> str:
        """The settings as JSON text, for a process of kgroup's own that needs the same cluster
        (kgroup scan's read tasks on Spark executors); it holds the secrets, so whatever carries
        it must keep it from view (scan passes it under an option name Spark redacts)."""
        import json

        return json.dumps({"properties": self.properties, "timeout": self.timeout, "verbose": self.verbose,
                           "secrets": self.secrets})

    @classmethod
    def from_json(cls, text: str) -> "ConnectionSettings":
        """The settings :meth:`to_json` wrote."""
        import json

        d = json.loads(text)
        return cls(properties=dict(d["properties"]), timeout=float(d["timeout"]), verbose=bool(d["verbose"]),
                   secrets=list(d["secrets"]))

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
    r"(?i)((?:sasl\.password|ssl\.key\.password|ssl\.keystore\.password|sasl\.jaas\.config|"
    r"sasl\.oauthbearer\.client\.secret|ssl\.key\.pem)\s*[=:]\s*)(\S+)",
]


def redact_patterns(text: str) -> str:
    for pattern in _SECRET_PATTERNS:
        text = re.sub(pattern, lambda m: m.group(1) + REDACTED, text)
    return text
