"""Sparklines: fixed width whatever the number of points, slots worked by hand."""
from __future__ import annotations

from kgroup.output import sparkline


def test_slots_take_the_highest_value_and_carry_the_last_forward():
    series = [(0, 0), (10, 5), (20, 10), (30, None), (40, 2)]
    # eight slots of 5 ms over [0, 40]: ends 5, 10, ..., 40
    assert sparkline.slots(series, 0, 40, 8) == [0, 5, 5, 10, 10, "?", "?", 2]


def test_slots_before_the_first_point_are_blank():
    assert sparkline.slots([(30, 4)], 0, 40, 4) == ["", "", 4, 4]


def test_a_long_window_keeps_its_width():
    series = [(t, t % 97) for t in range(0, 1_000_000, 7)]
    assert len(sparkline.draw(sparkline.slots(series, 0, 1_000_000))) == sparkline.WIDTH


def test_total_sums_slot_by_slot_and_is_unknown_where_one_series_is():
    a = [(0, 1), (20, None), (30, 4)]
    b = [(10, 2)]
    assert sparkline.total([a, b], 0, 40, 4) == [3, "?", 6, 6]


def test_draw_scales_from_zero_to_the_highest_value():
    # 0 is the lowest block, 14 (the highest) the top one, 1 the second lowest, 7: 1 + 7*6//14 = 4
    assert sparkline.draw([0, 1, 7, 14, "", "?"]) == "▁▂▅█·?"
    assert sparkline.draw([0, 0]) == "▁▁"
    assert sparkline.draw(["", 0, 3], sparkline.ASCII_BLOCKS, sparkline.ASCII_BLANK) == "._@"


def test_slot_ends_are_where_the_slots_end():
    # 40 ms in 8 slots of 5 ms; 10 ms in 4 slots: 2.5 ms each, floored
    assert sparkline.slot_ends(0, 40, 8) == [5, 10, 15, 20, 25, 30, 35, 40]
    assert sparkline.slot_ends(100, 110, 4) == [102, 105, 107, 110]
