"""The earliest anchor whose title is similar enough: a set-similarity join, one probe at a time.

The agreement model asks, for a finding without a line, for the EARLIEST group whose
anchor title has token Jaccard >= t with its own. `TitleIndex` answers that without
comparing against every anchor, with the classic cures of prefix-filter joins:

- **Size filter.** Jaccard >= t needs min(n, m) / max(n, m) >= t for token counts n, m,
  so anchors are kept in one partition per token count, and only feasible ones are probed.
- **Overlap bound.** For sizes n and m, Jaccard >= t needs at least `o(n, m)` shared tokens
  (the smallest count that passes the very comparison used to verify).
- **Prefix filter on rarity order.** Tokens are ordered rarest first (document frequency
  among the anchors when the index was last built, ties by text). If two sets share at
  least o tokens, their first l shared tokens lie within the first `size - o + l` tokens
  of each, so indexing an anchor under the l-token combinations of its prefix finds every
  anchor that can match, and almost no other: requiring l = 2 or 3 common tokens instead
  of one keeps a small vocabulary (45 words, 5 per title) from making every anchor a
  candidate of every query. l is the largest of 1..3 that the overlap bound allows and
  that keeps an anchor's keys within `KEY_BUDGET`.
- **First match.** Each posting list is in group order, so the lists are merged lazily
  and the first verified candidate is the answer; nothing after it is looked at.

The order is rebuilt from the anchors' frequencies each time the index doubles, so the
cost stays linear in the anchors overall. Verification uses exactly `jaccard(...) >=
threshold`, and every filter is derived from that same comparison, so the result is the
greedy definition's.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import combinations
from math import comb

KEY_BUDGET = 24
MAX_SHARED = 3
# Up to this many anchors, comparing titles one by one beats building an index.
SCAN_LIMIT = 12


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """Token Jaccard similarity; two empty sets have similarity 0."""
    shared = len(left & right)
    union = len(left) + len(right) - shared
    return shared / union if union else 0.0


def passes(shared: int, size: int, other: int, threshold: float) -> bool:
    """Whether two sets of `size` and `other` tokens sharing `shared` reach the threshold.

    The same arithmetic as `jaccard`, so the filters below never disagree with it.
    """
    union = size + other - shared
    return union > 0 and shared / union >= threshold


def least_overlap(size: int, other: int, threshold: float, *, subset: bool = False) -> int | None:
    """The fewest shared tokens with which sets of these sizes can match, or None.

    With `subset`, the other set is the shared tokens themselves (any size up to `size`).
    """

    def enough(shared: int) -> bool:
        return passes(shared, size, shared if subset else other, threshold)

    most = size if subset else min(size, other)
    if not enough(most):
        return None
    low, high = 0, most  # enough() is monotone in `shared`: binary search its edge
    while low < high:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle + 1
    return low


class _Partition:
    """The anchors with one token count: how many tokens a key holds, and the postings."""

    __slots__ = ("overlap", "postings", "shared")

    def __init__(self, size: int, threshold: float) -> None:
        # Any matching query shares at least this many tokens: the fewest for the best
        # case, a query made of `overlap` of the anchor's own tokens (union = size).
        self.overlap = least_overlap(size, 0, threshold, subset=True)
        self.shared = 0 if self.overlap is None else _shared_per_key(size, self.overlap)
        self.postings: dict[tuple[str, ...], list[int]] = {}

    def add(self, group: int, ordered: tuple[str, ...]) -> None:
        if self.overlap is None:
            return  # no query can match an anchor of this size (threshold above 1)
        prefix = ordered[: len(ordered) - self.overlap + self.shared]
        for key in combinations(prefix, self.shared):
            posting = self.postings.get(key)
            if posting is None:
                self.postings[key] = [group]
            else:
                posting.append(group)


def _shared_per_key(size: int, overlap: int) -> int:
    """The most tokens per key (up to `MAX_SHARED`) that keeps an anchor's keys in budget."""
    for shared in range(min(MAX_SHARED, overlap), 1, -1):
        if comb(size - overlap + shared, shared) <= KEY_BUDGET:
            return shared
    return 1


class TitleIndex:
    """Anchors' titles in group order, compared one by one while they are few (up to
    `SCAN_LIMIT`) and indexed once they are more and a finding asks.

    Titles are tokenized (by `tokens_of`, which may cache) only when compared or indexed,
    so anchors no finding without a line ever asks about cost nothing; nor does the index
    of a small bucket, which is never built.
    """

    __slots__ = (
        "_built_at",
        "_entries",
        "_order",
        "_overlaps",
        "_parts",
        "_rank",
        "_threshold",
        "_tokens_of",
    )

    def __init__(self, threshold: float, tokens_of: Callable[[str], frozenset[str]]) -> None:
        self._threshold = threshold
        self._tokens_of = tokens_of
        self._entries: dict[int, str] = {}  # anchor titles, in group order
        self._built_at = 0  # how many anchors the index was last built with

    # made by `_build`
    _rank: dict[str, int]
    _parts: dict[int, _Partition]
    _order: dict[frozenset[str], tuple[str, ...]]
    _overlaps: dict[tuple[int, int], int | None]

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, group: int, title: str) -> None:
        """Add the anchor title of `group`; groups arrive in increasing order."""
        self._entries[group] = title
        if not self._built_at:
            return
        if len(self._entries) >= 2 * self._built_at:
            self._build()
            return
        tokens = self._tokens_of(title)
        if tokens:
            self._partition(len(tokens)).add(group, self._ordered(tokens))

    def first_match(self, tokens: frozenset[str], before: int) -> int:
        """The earliest group before `before` whose anchor matches `tokens`, else `before`."""
        if len(self._entries) <= SCAN_LIMIT:
            return self._scan(tokens, before)
        if not self._built_at:
            self._build()
        size = len(tokens)
        if not size:
            return before  # an empty set matches nothing (threshold > 0 here)
        ordered = self._ordered(tokens)
        threshold = self._threshold
        postings = []
        for anchor_size, part in self._parts.items():
            overlap = self._overlap(anchor_size, size)
            if overlap is None:
                continue  # the size filter
            prefix = ordered[: size - overlap + part.shared]
            for key in combinations(prefix, part.shared):
                posting = part.postings.get(key)
                if posting is not None:
                    postings.append(posting)
        entries, tokens_of = self._entries, self._tokens_of
        checked = -1
        for group in _in_group_order(postings):
            if group >= before:
                break
            if group != checked:  # an anchor sharing several keys comes once per key
                checked = group
                if jaccard(tokens, tokens_of(entries[group])) >= threshold:
                    return group
        return before

    def _scan(self, tokens: frozenset[str], before: int) -> int:
        tokens_of, threshold = self._tokens_of, self._threshold
        for group, title in self._entries.items():
            if group >= before:
                break
            if jaccard(tokens, tokens_of(title)) >= threshold:
                return group
        return before

    def _build(self) -> None:
        """Index every anchor under a rarity order taken from the anchors' own tokens."""
        tokens_of = self._tokens_of
        anchors = [(group, tokens_of(title)) for group, title in self._entries.items()]
        frequency = Counter(token for _, tokens in anchors for token in tokens)
        rank = {
            token: position
            for position, (token, _) in enumerate(
                sorted(frequency.items(), key=lambda item: (item[1], item[0]))
            )
        }
        self._order = {}
        self._overlaps = {}
        self._rank = rank
        self._parts = {}
        self._built_at = len(self._entries)
        for group, tokens in anchors:
            if tokens:
                self._partition(len(tokens)).add(group, self._ordered(tokens))

    def _partition(self, size: int) -> _Partition:
        part = self._parts.get(size)
        if part is None:
            part = self._parts[size] = _Partition(size, self._threshold)
        return part

    def _ordered(self, tokens: frozenset[str]) -> tuple[str, ...]:
        ordered = self._order.get(tokens)
        if ordered is None:
            rank = self._rank
            unseen = -1  # tokens no anchor had are the rarest of all, ordered by text
            ordered = self._order[tokens] = tuple(
                sorted(tokens, key=lambda token: (rank.get(token, unseen), token))
            )
        return ordered

    def _overlap(self, size: int, other: int) -> int | None:
        key = (size, other)
        if key not in self._overlaps:
            self._overlaps[key] = least_overlap(size, other, self._threshold)
        return self._overlaps[key]


def _in_group_order(postings: list[list[int]]) -> Iterable[int]:
    if len(postings) == 1:
        return postings[0]
    return heapq.merge(*postings)
