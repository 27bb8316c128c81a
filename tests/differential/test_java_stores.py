"""Java stores read to PEM: JKS with pyjks, PKCS12 with cryptography, the stores written by the
JDK's keytool (tests/certs.py), so they are files Java itself made, as a user's are: the same CA,
chain and key come out; wrong passwords and stores without what is asked are bad configuration."""
from __future__ import annotations

import pytest

from kgroup.errors import UsageError
from kgroup.kafka.settings import ConnectionSettings, translate_java_config

pytestmark = pytest.mark.java


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    import javadriver
    from certs import make_certs

    javadriver.require_java("keytool")
    return make_certs(tmp_path_factory.mktemp("certs"))


def _der_of_pem(text: str) -> list[bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    return [c.public_bytes(Encoding.DER) for c in x509.load_pem_x509_certificates(text.encode())]


@pytest.mark.parametrize("kind", ["jks", "p12"])
def test_truststores_hold_the_ca(certs, kind):
    from kgroup.kafka.stores import truststore_pem

    path = certs.truststore_jks if kind == "jks" else certs.truststore_p12
    assert _der_of_pem(truststore_pem(str(path), certs.password)) == _der_of_pem(certs.ca_pem.read_text())


def test_a_jks_truststore_reads_without_its_password_as_java_does(certs):
    from kgroup.kafka.stores import truststore_pem

    assert _der_of_pem(truststore_pem(str(certs.truststore_jks), None)) == _der_of_pem(certs.ca_pem.read_text())


@pytest.mark.parametrize("kind", ["jks", "p12"])
def test_keystores_hold_the_client_key_and_chain(certs, kind):
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key

    from kgroup.kafka.stores import keystore_pem

    path = certs.keystore_jks if kind == "jks" else certs.keystore_p12
    chain, key = keystore_pem(str(path), certs.password, certs.password)
    assert _der_of_pem(chain) == _der_of_pem(certs.client_cert_pem.read_text() + certs.ca_pem.read_text())
    mine = load_pem_private_key(key.encode(), None).public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    theirs = load_pem_private_key(certs.client_key_pem.read_bytes(), None).public_key().public_bytes(
        Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    assert mine == theirs


@pytest.mark.parametrize("read, path, needle", [
    ("truststore", "truststore_jks", "wrong password"),
    ("truststore", "truststore_p12", "wrong password"),
    ("keystore", "keystore_jks", "wrong password"),
    ("keystore", "keystore_p12", "wrong password"),
    ("keystore", "truststore_p12", "wrong password"),  # PKCS12 checks the password before anything else
    ("keystore", "truststore_jks", "no private key"),
    ("truststore", "ca_pem", "not a PKCS12 or JKS store"),
])
def test_store_failures_are_bad_configuration(certs, read, path, needle):
    from kgroup.kafka import stores

    secret = "Wrong-Store-Pw-31"
    with pytest.raises(UsageError) as e:
        if read == "truststore":
            stores.truststore_pem(str(getattr(certs, path)), secret)
        else:
            stores.keystore_pem(str(getattr(certs, path)), secret if needle == "wrong password" else certs.password,
                                None)
    assert needle in e.value.message and secret not in e.value.message


def test_a_java_config_with_jks_stores_becomes_pem_in_memory(certs):
    out = translate_java_config({
        "security.protocol": "SSL", "ssl.truststore.location": str(certs.truststore_jks),
        "ssl.truststore.password": certs.password, "ssl.keystore.location": str(certs.keystore_jks),
        "ssl.keystore.password": certs.password, "ssl.key.password": certs.password}, "client.properties")
    assert sorted(out) == ["security.protocol", "ssl.ca.pem", "ssl.certificate.pem", "ssl.key.pem"]
    assert _der_of_pem(out["ssl.ca.pem"]) == _der_of_pem(certs.ca_pem.read_text())
    # and the key is a secret: each of its lines is masked wherever it appears
    from kgroup.kafka.settings import secrets_of

    settings = ConnectionSettings(properties=out, secrets=secrets_of(out))
    body = out["ssl.key.pem"].splitlines()[1]
    assert body not in settings.redact(f"key line: {body}")
