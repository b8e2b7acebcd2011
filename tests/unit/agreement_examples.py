"""Published worked examples of the agreement coefficients, shared by the agreement tests."""

from __future__ import annotations

# Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C:
# 4 observers x 12 units, values 1..5, '*' = missing.
KRIPPENDORFF_DATA = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def _krippendorff_rows():
    return [
        (unit, rater, value)
        for rater, values in KRIPPENDORFF_DATA.items()
        for unit, value in enumerate(values)
        if value is not None
    ]
