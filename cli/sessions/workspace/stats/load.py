"""Reads measurements, one number per line."""


def load(path):
    """The numbers in `path`, skipping blank lines and # comments."""
    values = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                values.append(float(line))
    return values
