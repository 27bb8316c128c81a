"""A throwaway certificate authority and the certificates the TLS tests need, made by the test run.

The keys and certificates are made with the ``cryptography`` package, in-process and in well under
a second: a certificate that expired yesterday or carries chosen subject alternative names is one
argument there, where keytool needs a JVM start per step and cannot back-date a certificate's end.
The Java stores (JKS and PKCS12 truststores and keystores) are then made by the JDK's keytool from
those files, so they are files Java itself wrote, as a user's are.

Every key is EC P-256 (fast to make; JSSE, OpenSSL and Python's ssl all take it).
"""
from __future__ import annotations

import datetime
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PASSWORD = "changeit"


@dataclass(frozen=True)
class Certs:
    """Paths of the files make_certs wrote (all PEM unless named otherwise)."""

    dir: Path
    ca_pem: Path  # the test CA's certificate: the truststore of every good case
    ca_key_pem: Path
    server_cert_pem: Path  # CN=localhost, SAN DNS:localhost + IP:127.0.0.1, signed by the CA
    server_key_pem: Path  # unencrypted PKCS#8
    server_keystore_pem: Path  # key + certificate chain in one file (a Kafka PEM keystore)
    other_name_keystore_pem: Path  # signed by the CA for DNS:kafka.invalid only: hostname mismatch
    expired_keystore_pem: Path  # signed by the CA for localhost/127.0.0.1, expired yesterday
    other_ca_keystore_pem: Path  # localhost/127.0.0.1, signed by the unrelated CA (wrong-CA tests)
    client_cert_pem: Path  # CN=kgroup-client, signed by the CA (mTLS)
    client_key_pem: Path  # unencrypted PKCS#8
    client_key_encrypted_pem: Path  # the same key, PKCS#8 encrypted with ``password``
    other_client_cert_pem: Path  # CN=kgroup-client, signed by the unrelated CA: refused by mTLS
    other_client_key_pem: Path
    other_ca_pem: Path  # an unrelated CA: trusting it alone must fail against the front
    truststore_jks: Path | None  # the CA, alias "ca", password ``password`` (keytool)
    truststore_p12: Path | None
    keystore_p12: Path | None  # the client key and certificate chain, alias "client" (keytool)
    keystore_jks: Path | None
    password: str = PASSWORD


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _key():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _name(cn: str):
    from cryptography.x509.oid import NameOID
    from cryptography import x509

    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kgroup tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _ca(cn: str):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    key = _key()
    name = _name(cn)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(_now() - datetime.timedelta(days=1))
            .not_valid_after(_now() + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def _leaf(ca, cn: str, *, dns: tuple[str, ...] = (), ips: tuple[str, ...] = (), client: bool = False,
          expired: bool = False):
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID

    ca_key, ca_cert = ca
    key = _key()
    if expired:
        start, end = _now() - datetime.timedelta(days=30), _now() - datetime.timedelta(days=1)
    else:
        start, end = _now() - datetime.timedelta(days=1), _now() + datetime.timedelta(days=30)
    builder = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(ca_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(end)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH if client
                                                     else ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False))
    names = [x509.DNSName(d) for d in dns] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return key, builder.sign(ca_key, hashes.SHA256())


def _cert_pem(cert) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding

    return cert.public_bytes(Encoding.PEM)


def _key_pem(key, password: str | None = None) -> bytes:
    from cryptography.hazmat.primitives import serialization

    encryption = (serialization.BestAvailableEncryption(password.encode()) if password
                  else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def _keytool(*args: str) -> None:
    subprocess.run(["keytool", "-noprompt", *args], check=True, capture_output=True, timeout=120)


def make_certs(directory: Path, java_stores: bool = True) -> Certs:
    """Write the CA, certificates and stores into ``directory`` (created). ``java_stores=False``
    skips keytool (the four Java stores are then None)."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.serialization import pkcs12

    directory.mkdir(parents=True, exist_ok=True)
    ca = _ca("kgroup test CA")
    other_ca = _ca("unrelated test CA")
    local = {"dns": ("localhost",), "ips": ("127.0.0.1",)}
    server = _leaf(ca, "localhost", **local)
    other_name = _leaf(ca, "kafka.invalid", dns=("kafka.invalid",))
    expired = _leaf(ca, "localhost", expired=True, **local)
    wrong_ca_server = _leaf(other_ca, "localhost", **local)
    client = _leaf(ca, "kgroup-client", client=True)
    other_client = _leaf(other_ca, "kgroup-client", client=True)

    def write(name: str, data: bytes) -> Path:
        path = directory / name
        path.write_bytes(data)
        path.chmod(0o600)
        return path

    def keystore(name: str, leaf, issuer) -> Path:
        return write(name, _key_pem(leaf[0]) + _cert_pem(leaf[1]) + _cert_pem(issuer[1]))

    paths = dict(
        dir=directory,
        ca_pem=write("ca.pem", _cert_pem(ca[1])),
        ca_key_pem=write("ca-key.pem", _key_pem(ca[0])),
        server_cert_pem=write("server.pem", _cert_pem(server[1])),
        server_key_pem=write("server-key.pem", _key_pem(server[0])),
        server_keystore_pem=keystore("server-keystore.pem", server, ca),
        other_name_keystore_pem=keystore("other-name-keystore.pem", other_name, ca),
        expired_keystore_pem=keystore("expired-keystore.pem", expired, ca),
        other_ca_keystore_pem=keystore("other-ca-keystore.pem", wrong_ca_server, other_ca),
        client_cert_pem=write("client.pem", _cert_pem(client[1])),
        client_key_pem=write("client-key.pem", _key_pem(client[0])),
        client_key_encrypted_pem=write("client-key-encrypted.pem", _key_pem(client[0], PASSWORD)),
        other_client_cert_pem=write("other-client.pem", _cert_pem(other_client[1])),
        other_client_key_pem=write("other-client-key.pem", _key_pem(other_client[0])),
        other_ca_pem=write("other-ca.pem", _cert_pem(other_ca[1])),
    )
    stores: dict[str, Path | None] = dict(truststore_jks=None, truststore_p12=None, keystore_p12=None,
                                          keystore_jks=None)
    if java_stores:
        if shutil.which("keytool") is None:
            raise RuntimeError("keytool not found on PATH")
        # the client's key as a PKCS12 bundle keytool can read (3DES/SHA1: every JDK takes it)
        encryption = (serialization.PrivateFormat.PKCS12.encryption_builder().kdf_rounds(2048)
                      .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC)
                      .hmac_hash(hashes.SHA1()).build(PASSWORD.encode()))
        bundle = write("client-source.p12", pkcs12.serialize_key_and_certificates(
            b"client", client[0], client[1], [ca[1]], encryption))
        for kind, name in (("JKS", "truststore.jks"), ("PKCS12", "truststore.p12")):
            target = directory / name
            target.unlink(missing_ok=True)  # keytool adds to an existing store
            _keytool("-importcert", "-alias", "ca", "-file", str(paths["ca_pem"]), "-keystore", str(target),
                     "-storetype", kind, "-storepass", PASSWORD)
            stores["truststore_" + ("jks" if kind == "JKS" else "p12")] = target
        for kind, name in (("PKCS12", "keystore.p12"), ("JKS", "keystore.jks")):
            target = directory / name
            target.unlink(missing_ok=True)
            _keytool("-importkeystore", "-srckeystore", str(bundle), "-srcstoretype", "PKCS12",
                     "-srcstorepass", PASSWORD, "-srcalias", "client", "-destkeystore", str(target),
                     "-deststoretype", kind, "-deststorepass", PASSWORD, "-destkeypass", PASSWORD,
                     "-destalias", "client")
            stores["keystore_" + ("jks" if kind == "JKS" else "p12")] = target
        bundle.unlink()
    return Certs(**paths, **stores)  # type: ignore[arg-type]
