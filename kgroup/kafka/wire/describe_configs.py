"""Groups' configurations (KIP-848's group configs: DescribeConfigs of resource type GROUP, 32), asked
as Kafka's Java Admin client asks them (KafkaAdminClient.describeConfigs: a GROUP resource goes to
any broker): DescribeConfigs v4 (Kafka 2.8+) to the first bootstrap server that answers. librdkafka
cannot name a GROUP resource.

Kafka answers every group config for any group name (ConfigHelper): the group's own value (source
GROUP_CONFIG) or the brokers' default for it (the source of the broker setting it falls back on).
A resource answered with an error is that group's result (ConfigsError): the caller says it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kgroup.kafka.wire.connection import Connection, Refused, WireError
from kgroup.kafka.wire.coordinators import CONNECT_WITHIN
from kgroup.kmsg.messages import DESCRIBE_CONFIGS

if TYPE_CHECKING:
    from kgroup.kafka.wire.security import Security

GROUP_RESOURCE = 32  # Kafka's ConfigResource.Type.GROUP


class ConfigValue(NamedTuple):
    value: str | None  # None: sensitive, or no value
    source: int  # Kafka's ConfigSource id (8: the group's own; kgroup.group.configs says it)


class ConfigsError(NamedTuple):
    """A group's resource answered with an error (Kafka's code and message)."""

    code: int
    message: str | None


def describe_group_configs(bootstrap: list[tuple[str, int]], client_id: str, deadline: float,
                           security: Security | None, groups: list[str], names: list[str] | None
                           ) -> dict[str, dict[str, ConfigValue] | ConfigsError]:
    """Each group's configs ``names`` (None: all), by group. Raises WireError where no bootstrap
    server answers or the first that does speaks no DescribeConfigs v4, the typed error of a
    refused login or TLS failure (Refused's)."""
    tried = []
    for host, port in bootstrap:
        try:
            conn = Connection(host, port, client_id, deadline, CONNECT_WITHIN, security)
        except Refused as e:
            raise e.error from None
        except WireError as e:
            tried.append(str(e))
            continue
        if not conn.supports(DESCRIBE_CONFIGS):  # a cluster's brokers share a version: no other is asked
            conn.close()
            raise WireError(f"the broker at {host}:{port} does not answer DescribeConfigs v4 (Kafka 2.8+)")
        try:
            conn.send(DESCRIBE_CONFIGS, {"resources": [
                {"resourceType": GROUP_RESOURCE, "resourceName": g, "configurationKeys": names} for g in groups],
                "includeSynonyms": False, "includeDocumentation": False})
            answer = conn.receive()
        except Refused as e:
            raise e.error from None
        except WireError as e:
            tried.append(str(e))
            continue
        finally:
            conn.close()
        out: dict[str, dict[str, ConfigValue] | ConfigsError] = {}
        for r in answer["results"]:
            if r["resourceType"] != GROUP_RESOURCE or r["resourceName"] not in groups:
                continue
            out[r["resourceName"]] = (ConfigsError(r["errorCode"], r["errorMessage"]) if r["errorCode"] else
                                      {c["name"]: ConfigValue(c["value"], c["configSource"]) for c in r["configs"]})
        return out
    raise WireError(f"no bootstrap server answered DescribeConfigs ({'; '.join(tried) or 'none given'})")
