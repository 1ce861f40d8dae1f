# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Why samples were rejected: reasons that carry their kind, and a one-line count of them.

A batch run lists each rejected sample as ``(index, reason)``; the reason is a ``Rejection``, a
string (its message) with the kind of ``EstimatorInputError`` it stands for, so a summary can
count them by kind (``rejection_summary``).
"""
from __future__ import annotations

from collections import Counter

# what each kind means to a user; the hint says what usually causes a whole bag of it
KIND_TEXT = {
    'implausible': ("outside the model's joint limits (implausible)",
                    'wrong joint order or wrong model?'),
    'jump': ('a jump from the previous sample faster than the drive can move (a glitch)', ''),
    'nonfinite': ('NaN or inf', ''),
    'shape': ('of the wrong shape', ''),
    'duplicate_stamp': ('a repeated stamp', ''),
    'out_of_order': ('stamped before the previous sample', ''),
    'nonfinite_state': ('made the estimate non-finite', ''),
}


class Rejection(str):
    """A rejected sample's reason: the message, with ``kind`` (``EstimatorInputError.kind``)."""

    kind = 'other'

    def __new__(cls, kind, text):
        obj = super().__new__(cls, text)
        obj.kind = kind
        return obj


def kind_of(reason):
    """Return the kind of a reason (``'other'`` for a plain string)."""
    return getattr(reason, 'kind', 'other')


def rejection_summary(rejected, total):
    """Return one line counting rejected samples by kind, most frequent first.

    Args:
        rejected: ``[(index, reason)]``.
        total: how many samples there were.

    Returns:
        ``'all 2000 joint states were rejected: 2000 outside the ... (implausible): wrong joint
        order or wrong model?'`` or ``'1500 of 2000 joint states were rejected: ...'``; '' when
        none was.
    """
    counts = Counter(kind_of(reason) for _, reason in rejected)
    if not counts:
        return ''
    n = sum(counts.values())
    head = (f'all {total} joint states were rejected' if n >= total else
            f'{n} of {total} joint states were rejected')
    parts = []
    for kind, count in counts.most_common():
        text, hint = KIND_TEXT.get(kind, (kind, ''))
        parts.append(f'{count} {text}' + (f': {hint}' if hint else ''))
    return f'{head}: ' + '; '.join(parts)
