"""kgroup.group.configs: a group config's value and where it comes from, from answers made here."""
from __future__ import annotations

from kgroup.group.configs import group_config, int_config
from kgroup.kafka.wire.describe_configs import ConfigsError, ConfigValue

N = "streams.num.standby.replicas"


def test_own_value_brokers_default_and_what_is_not_known():
    found = {"own": {N: ConfigValue("2", 8)}, "plain": {N: ConfigValue("0", 5)}, "odd": {N: ConfigValue("two", 8)},
             "none": {N: ConfigValue(None, 5)}, "old": {}, "denied": ConfigsError(30, "not allowed")}
    assert int_config(found, "own", N, "") == (2, f"the group's own {N}")
    assert int_config(found, "plain", N, "") == (0, f"the brokers' default group.{N} (the group sets none)")
    assert int_config(found, "odd", N, "") == (None, f"the group's own {N} is 'two', not a whole number")
    assert group_config(found, "none", N, "")[0] is None
    assert group_config(found, "old", N, "") == (None, f"the brokers report no {N} for the group (a broker before "
                                                       "the config existed)")
    assert group_config(found, "denied", N, "") == (None, f"the group's {N} was not answered: error 30 not allowed")
    assert group_config(found, "missing", N, "") == (None, f"the group's {N} was not answered")
    assert group_config(None, "own", N, "no bootstrap server") == (
        None, f"the group's {N} could not be asked (no bootstrap server)")
