"""Text similarity for findings without a usable line: TF-IDF cosine over title and body.

Bots word the same bug differently, so the seed's title Jaccard almost never merges two
bots' reports of it. Here a finding's text (title and body) becomes a TF-IDF vector over
its word and code-identifier tokens: lowercased `\\w\\w+` runs (so `cache_mu` and
`BuildIndex` stay whole identifiers), English function words dropped, and a light suffix
strip so that `locks`/`locked`/`lock` meet. Inverse document frequencies come from the
input itself, so words every bot uses weigh little and the names of the code at issue
weigh much. A finding joins the cluster whose members it resembles most on average
(cosine to the sum of their unit vectors, divided by their number).

Candidates come from an inverted index over the clusters of one file: a finding probes
only its rarest tokens, and compares at most `CANDIDATES` of the clusters posted under
them (those sharing the most of those tokens, when more share one), so matching stays
linear at any size and every finding is still matched; there is no all-pairs comparison.
Where that bound left clusters out, the index keeps them (`passed_over`) when they are
few enough to check whether one would have been the better match.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import partial
from itertools import chain, repeat
from operator import mul, truediv

_TOKEN = re.compile(r"\w\w+")
_SUFFIXES = ("ing", "ed", "es", "s")
STOPWORDS = frozenset(
    [
       "a", "about", "above", "after", "again", "against", "all", "also", "an", "and", "any",
       "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
       "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
       "for", "from", "further", "had", "has", "have", "having", "here", "how", "if", "in", "into",
       "is", "it", "its", "itself", "just", "may", "might", "more", "most", "must", "no", "nor",
       "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own",
       "same", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then",
       "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
       "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "why",
       "will", "with", "would", "you", "your",
    ]
)  # fmt: skip
# A finding probes at most this many of its rarest tokens...
PROBE_TOKENS = 8
# ...and compares at most this many of the clusters posted under them (its candidates):
# where more share its probed tokens, those that share the most of them among the latest
# this many of each token's clusters, a rarer token's first on ties.
CANDIDATES = 32
# Where the bound applied, the clusters it passed over are checked (would one have been
# the better match?) when its probed tokens' postings hold at most this many entries in
# all; past that, too many to check without undoing the bound.
CHECKED = 4 * CANDIDATES
# A file's index holding this many clusters (at least twice as many as it kept the last
# time) lets go of those no probe can reach any more (`TextIndex.let_go`).
HELD = 1024

Vector = dict[str, float]


def tokens(text: str) -> tuple[str, ...]:
    """The word and identifier tokens of `text`, lowercased, stopwords dropped, stemmed
    (a tuple: the corpus keeps those of every text without a line)."""
    lowered = text.lower()
    words = lowered.split() if _plain(lowered) else _TOKEN.findall(lowered)
    # each word's stem looked up in C; a quarter faster than a loop over the words
    return tuple(filter(None, map(_STEM_OF, words)))  # stopwords, single letters stem to ""


def tokens_of_each(texts: list[str]) -> list[tuple[str, ...]]:
    """`tokens` of each of `texts` (as tuples, which a file's index keeps: a tuple takes
    two thirds of a list's memory), worked out in C from end to end (no Python call per
    text): a file's lined clusters, tens of thousands of files, are all tokenized."""
    lowered = list(map(str.lower, texts))
    split = str.split if _plain("".join(lowered)) else _TOKEN.findall
    return list(map(tuple, map(_NONEMPTY, map(_STEMS_OF, map(split, lowered)))))


def tokens_of_texts(texts: list[str]) -> list[tuple[str, ...]]:
    """`tokens` of each of `texts`, one tuple shared by the same texts (a file's findings
    without a line: near-identical ones repeat a few texts thousands of times). No cache
    outlives the call: the tuples are kept by the caller only as long as it needs them."""
    return list(map(_Texts().__getitem__, texts))


def _plain(lowered: str) -> bool:
    """Whether `lowered` holds words and spaces only (most titles): the words between the
    spaces are then its `\\w+` runs, split in C, a third faster than the pattern (a
    one-letter run stems to "")."""
    return lowered.replace(" ", "").replace("_", "").isalnum()  # isalnum: `\w` but "_"


def _stem(token: str) -> str:
    """`token` without a plural or tense suffix; empty for a stopword or a single letter."""
    if token in STOPWORDS or len(token) < 2:
        return ""
    for suffix in _SUFFIXES:
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


class _Stems(dict[str, str]):
    """Each word's stem, worked out the first time the word is looked up."""

    def __missing__(self, word: str) -> str:
        stem = self[word] = _stem(word)
        return stem


class _Texts(dict[str, tuple[str, ...]]):
    """Each text's tokens, worked out the first time the text is looked up."""

    def __missing__(self, text: str) -> tuple[str, ...]:
        found = self[text] = tokens(text)
        return found


_STEMS = _Stems()
_STEM_OF = _STEMS.__getitem__
_STEMS_OF = partial(map, _STEM_OF)
_NONEMPTY = partial(filter, None)


class Corpus:
    """Document frequencies over the texts that take part in text matching.

    Texts are tokenized (`tokens_of_texts` or `tokens_of_each`) as they are gathered, and
    `count` takes the tokens of each batch of documents, all of them before the first
    vector is made. The corpus keeps no text's tokens: those who weigh them do, as long
    as they can be asked for.
    """

    def __init__(self) -> None:
        self.size = 0
        self.frequency: Counter[str] = Counter()
        self._idfs: dict[str, float] = {}

    def count(self, documents: Sequence[Sequence[str]]) -> None:
        """Count more documents (each its tokens) whose frequencies weigh the tokens."""
        self.size += len(documents)
        self.frequency.update(chain.from_iterable(map(set, documents)))
        self._idfs.clear()

    def _idf(self, token: str) -> float:
        idf = self._idfs.get(token)
        if idf is None:
            size = self.size
            idf = self._idfs[token] = math.log((1 + size) / (1 + self.frequency[token])) + 1
        return idf

    def weigh(self, tokens: Sequence[str]) -> Vector:
        """The unit TF-IDF vector of a text whose tokens are `tokens` (idf = ln((1 + n) /
        (1 + df)) + 1)."""
        known = self._idfs.get  # every idf is at least 1, so a miss is the only falsy value
        if len(set(tokens)) == len(tokens):  # each token once (most texts): weights in C
            found = list(map(known, tokens))  # 1 * idf is the idf
            weights: list[float] = (
                [idf or self._idf(token) for token, idf in zip(tokens, found, strict=True)]
                if None in found
                else found  # type: ignore[assignment]  # no None among them
            )
            # fsum, not sum: correctly rounded, so the same on every Python (3.12 changed sum)
            norm = math.sqrt(math.fsum(map(mul, weights, weights)))
            return (
                dict(zip(tokens, map(truediv, weights, repeat(norm)), strict=True)) if norm else {}
            )
        counts: dict[str, int] = {}  # in order of first occurrence, as a Counter keeps them
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        by_token = {
            token: count * (known(token) or self._idf(token)) for token, count in counts.items()
        }
        norm = math.sqrt(math.fsum(map(mul, by_token.values(), by_token.values())))
        return {token: weight / norm for token, weight in by_token.items()} if norm else {}


class TextIndex:
    """The clusters of one file, by token; members' vectors are summed when first needed.

    `probed` holds every token a probe can carry (those of the texts that will probe):
    postings of other tokens would never be read, and a cluster with none of them can
    never be a candidate, so neither is kept.

    Each new member costs its own tokens, whatever the size of its cluster: a sum once
    made takes each further member's vector as it comes, and its tokens are those its
    cluster is posted under (the probed ones among them), so no set of them is kept. The
    sum is made by adding the members' vectors in member order either way, so it is the
    same floating-point sum; once made, its members' tokens are never asked for again.
    """

    def __init__(self, corpus: Corpus, probed: set[str]) -> None:
        self.corpus = corpus
        self.probed = probed
        self.postings: dict[str, list[int]] = {}
        # Each cluster's members' tokens, as long as its sum is not made; then only their
        # number is read, and each is the empty tuple (lineless, 1,000,000 findings: the
        # tokens of every text, 80 bytes a finding, were alive at the end of matching).
        self.texts: dict[int, list[tuple[str, ...]]] = {}
        self.sums: dict[int, Vector] = {}
        self.bounded = 0  # probes that compared `CANDIDATES` of more clusters
        # The last probe's clusters left out by the bound, in cluster order: empty when it
        # did not apply, None when the postings held more than `CHECKED` entries.
        self.passed_over: list[int] | None = []
        self._held = HELD  # clusters held when `let_go` is next called

    def reach(self, cluster: int, tokens: tuple[str, ...], reached: set[str]) -> None:
        """A new cluster whose first text, `tokens`, holds the probed tokens `reached`
        (not empty)."""
        texts = self.texts
        texts[cluster] = [tokens]
        self._post(cluster, reached)
        if len(texts) >= self._held:
            self.let_go()

    def let_go(self) -> None:
        """Forget the sums and texts of the clusters no probe can reach any more.

        A probe reaches a cluster through a token's latest `CANDIDATES` postings, or
        through any of them while its tokens' postings hold at most `CHECKED` in all: a
        cluster posted only under longer postings, and outside the latest of each, is
        never a candidate again (nor passed over), so it never gains a member either.
        Postings only grow, so it stays out. Where every word is common (lineless,
        1,000,000 findings), nearly every cluster is out soon after it is made: their
        sums took 174 bytes a finding at the end of matching. Called as the clusters
        held double, each call costs the postings it reads and the clusters it checks.
        """
        live = set(
            chain.from_iterable(
                posting if len(posting) <= CHECKED else posting[-CANDIDATES:]
                for posting in self.postings.values()
            )
        )
        texts, sums = self.texts, self.sums
        for cluster in texts.keys() - live:
            del texts[cluster]
            sums.pop(cluster, None)
        self._held = max(2 * len(texts), HELD)

    def add(self, cluster: int, tokens: tuple[str, ...], vector: Vector) -> None:
        """A member's text (its tokens and vector): a new cluster's first, or a further one."""
        reached = self.probed.intersection(tokens)
        texts = self.texts.get(cluster)
        if texts is None:
            if reached:  # else no probe can reach this cluster through this text
                self.reach(cluster, tokens, reached)
            return
        total = self.sums.get(cluster)
        if total is None:  # posted under the probed tokens of its members' texts
            self._post(cluster, reached.difference(*texts))
            texts.append(tokens)
        else:
            # A sum holds each token of its members' texts: those posted are its probed
            # ones. A set of them kept per cluster took 178 bytes a finding (lineless).
            self._post(cluster, reached.difference(total))
            texts.append(())
            _accumulate(total, vector)

    def _post(self, cluster: int, new: set[str]) -> None:
        """`cluster` on the posting list of each token in `new` (none of them has it yet)."""
        postings = self.postings
        for token in new:
            posting = postings.get(token)
            if posting is None:
                postings[token] = [cluster]
            else:
                posting.append(cluster)

    def candidates(self, vector: Vector) -> list[int]:
        """Clusters sharing one of the rarest tokens of `vector`, in cluster order: all of
        them when they are at most `CANDIDATES`, else the `CANDIDATES` that share the most
        of those tokens among the latest `CANDIDATES` of each (counted in `bounded`, the
        others sharing one kept in `passed_over` when there are few enough to check)."""
        rare = sorted(vector)  # by frequency, then alphabetically: two sorts in C
        rare.sort(key=self.corpus.frequency.__getitem__)
        postings = list(filter(None, map(self.postings.get, rare[:PROBE_TOKENS])))
        shared = Counter(chain.from_iterable(posting[-CANDIDATES:] for posting in postings))
        if len(shared) > CANDIDATES or any(len(posting) > CANDIDATES for posting in postings):
            self.bounded += 1
            most = sorted(shared, key=shared.__getitem__, reverse=True)  # stable: rarest first
            del most[CANDIDATES:]
            most.sort()
            self.passed_over = (
                sorted(set(chain.from_iterable(postings)).difference(most))
                if sum(map(len, postings)) <= CHECKED
                else None
            )
            return most
        self.passed_over = []
        return sorted(shared)

    def similarity(self, cluster: int, vector: Vector) -> float:
        """Average cosine between `vector` and the cluster's members."""
        total = self.sums.get(cluster)
        texts = self.texts[cluster]
        if total is None:
            # most clusters have one member: the sum is its vector (0.0 + w is w)
            weigh = self.corpus.weigh
            total = self.sums[cluster] = weigh(texts[0])
            for tokens in texts[1:]:
                _accumulate(total, weigh(tokens))
            self.texts[cluster] = [()] * len(texts)  # their tokens are asked for no more
        dot = math.fsum(map(mul, vector.values(), map(total.get, vector, repeat(0.0))))
        return dot / len(texts)


def _accumulate(total: Vector, vector: Vector) -> None:
    """Add `vector` into `total`, token by token."""
    for token, weight in vector.items():
        total[token] = total.get(token, 0.0) + weight
