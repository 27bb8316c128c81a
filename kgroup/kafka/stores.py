"""Java key and trust stores (JKS, PKCS12) read into PEM text, for librdkafka (ssl.ca.pem,
ssl.certificate.pem, ssl.key.pem) and for kgroup's own client (kgroup.kafka.wire.security).

JKS is read with pyjks, PKCS12 with cryptography's loader. As Java does (keystore.type.compat),
the file's own format decides how it is read, whatever type the configuration names: a JKS
file starts with its magic number, anything else is read as PKCS12. A truststore's password
only guards its integrity: without one, Java reads a JKS truststore unchecked, and so does
kgroup. A private key leaves here unencrypted, as PEM text in memory only.

Every failure is a UsageError (exit 2) naming the file and the cause, never the password.
"""
from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from kgroup.errors import UsageError

_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_JCEKS_MAGIC = b"\xce\xce\xce\xce"


def _pem(kind: str, der: bytes) -> str:
    body = base64.encodebytes(der).decode("ascii").replace("\n", "")
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n"


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e.strerror or e}") from None


def _is_jks(data: bytes) -> bool:
    return data[:4] in (_JKS_MAGIC, _JCEKS_MAGIC)


def _load_jks(data: bytes, password: str | None, path: str, what: str) -> Any:
    import jks

    try:
        return jks.KeyStore.loads(data, password, try_decrypt_keys=password is not None)
    except jks.util.KeystoreSignatureException:
        raise UsageError(f"{what} {path}: wrong password (the store's integrity check failed)") from None
    except (jks.util.KeystoreException, ValueError, UnicodeError) as e:
        raise UsageError(f"{what} {path} is not a JKS store kgroup can read ({type(e).__name__})") from None


def _load_pkcs12(data: bytes, password: str | None, path: str, what: str) -> Any:
    from cryptography.hazmat.primitives.serialization import pkcs12

    secret = None if password is None else password.encode("utf-8")
    try:
        return pkcs12.load_pkcs12(data, secret)
    except ValueError:
        # the loader says the same for a wrong password and for a file that is not PKCS12
        raise UsageError(f"{what} {path}: wrong password, or not a PKCS12 or JKS store") from None


def truststore_pem(path: str, password: str | None) -> str:
    """The certificates of a JKS or PKCS12 truststore as PEM text (what ssl.ca.pem takes)."""
    what = "ssl.truststore.location"
    data = _read(path, what)
    ders: list[bytes] = []
    if _is_jks(data):
        store = _load_jks(data, password, path, what)
        ders = [entry.cert for entry in store.certs.values()]
        for entry in store.private_keys.values():  # a keystore used as a truststore: Java trusts its chains too
            ders.extend(cert for _, cert in entry.cert_chain)
    else:
        from cryptography.hazmat.primitives.serialization import Encoding

        p12 = _load_pkcs12(data, password, path, what)
        certs = ([p12.cert] if p12.cert is not None else []) + list(p12.additional_certs)
        ders = [c.certificate.public_bytes(Encoding.DER) for c in certs]
    if not ders:
        raise UsageError(f"{what} {path} holds no certificate")
    return "".join(_pem("CERTIFICATE", der) for der in ders)


def keystore_pem(path: str, password: str | None, key_password: str | None) -> tuple[str, str]:
    """(certificate chain, private key) of a JKS or PKCS12 keystore's one key entry as PEM text
    (what ssl.certificate.pem and ssl.key.pem take); the key unencrypted. ``key_password``
    (ssl.key.password) opens the key where it differs from the store's password."""
    what = "ssl.keystore.location"
    data = _read(path, what)
    if _is_jks(data):
        import jks

        store = _load_jks(data, password, path, what)
        entries = list(store.private_keys.values())
        if not entries:
            raise UsageError(f"{what} {path} holds no private key with a certificate")
        if len(entries) > 1:
            raise UsageError(f"{what} {path} holds {len(entries)} private keys; kgroup needs a keystore with one")
        entry = entries[0]
        if not entry.is_decrypted():
            for candidate in (key_password, password):
                if candidate is None:
                    continue
                try:
                    entry.decrypt(candidate)
                    break
                except jks.util.DecryptionFailureException:
                    continue
            else:
                raise UsageError(f"{what} {path}: wrong key password (ssl.key.password), the key cannot be read")
        chain = "".join(_pem("CERTIFICATE", cert) for _, cert in entry.cert_chain)
        if not chain:
            raise UsageError(f"{what} {path} holds a key without a certificate")
        return chain, _pem("PRIVATE KEY", entry.pkey_pkcs8)
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    p12 = _load_pkcs12(data, password, path, what)
    if p12.key is None or p12.cert is None:
        raise UsageError(f"{what} {path} holds no private key with a certificate")
    chain = "".join(c.certificate.public_bytes(Encoding.PEM).decode("ascii")
                    for c in [p12.cert, *p12.additional_certs])
    key = p12.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode("ascii")
    return chain, key
