"""Turns a list of measurements into a one-line report."""

from calc import mean, spread


def report(name, values):
    """`name: mean M, spread S over N values`."""
    return f"{name}: mean {mean(values):.2f}, spread {spread(values)} over {len(values)} values"
