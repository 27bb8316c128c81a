"""Lag: the lag of a moment, lag over time from the offsets log, its status by Burrow's rules, and
where a partition's log ended at a past moment."""
