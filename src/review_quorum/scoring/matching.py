"""Matching by evidence (the reliability model, SPEC 3b): which findings are one issue.

Within one file, findings with a line are swept in line order: a finding joins an open
cluster when its range [line, end_line] overlaps the cluster's span widened by the line
window (so a taint finding spanning source to sink meets a finding at the sink). Among
open clusters it joins the one it overlaps most (earliest on ties). Two findings of one
source (bot and rule) on different lines are different issues, so a cluster never takes a
second one; the same source on the same line is a duplicate and joins.

Findings without a line then join the cluster of their file whose members' text they
resemble most (`text.TextIndex`, average TF-IDF cosine >= `TEXT_SIMILARITY`); a cluster
that already holds the same bot needs a near-duplicate (`DUPLICATE_SIMILARITY`), since a
bot states each issue once and repeats itself nearly verbatim. Each such finding is
compared with at most `text.CANDIDATES` clusters of its file, at any size: where more
share its rarest words, those sharing the most of them (`TextIndex.candidates`). Where
that bound left clusters out, they are compared too when few enough (at most
`text.CHECKED` postings), only to tell whether one would have been chosen: the run warns
how many findings the bound may have matched elsewhere (those where one would have, and
those with too many left out to check), and says nothing when it changed no match. A
bound on the clusters compared, never on the findings matched: every finding without a
line is still matched, however many there are.

Categories: where both sides state CWEs, the CWEs decide, not the categories drawn from
them: two rules of one analyser whose stated CWE ids share nothing are different issues
(its insecure random number is not its cross-site scripting on the same line), while
different analysers tag one issue with neighbouring CWEs, so their CWEs never separate
findings. Otherwise a category the tool
stated (certainty 1.0) separates findings, as an analyser rule's category does, unless it
is the generic `other`, which says nothing about the kind of issue; a category guessed
from words (certainty < 1.0) never separates, it only breaks ties between candidate
clusters. The result depends only on the findings' order, which `order="canonical"`
makes canonical.
"""

from __future__ import annotations

import warnings
from array import array
from collections.abc import Iterator, Sequence
from itertools import chain, compress, repeat
from math import fsum
from operator import attrgetter, itemgetter, mul

from review_quorum.errors import QuorumWarning
from review_quorum.model import NormalizedFinding, is_stated
from review_quorum.scoring.text import (
    CANDIDATES,
    Corpus,
    TextIndex,
    Vector,
    tokens_of_each,
    tokens_of_texts,
)
from review_quorum.scoring.witnesses import GENERIC, Source, source_of

TEXT_SIMILARITY = 0.4
DUPLICATE_SIMILARITY = 0.7


class _Cluster:
    """One issue being gathered: its members, span, stated category, CWEs, sources, bots.

    A plain slotted class: a million findings make half a million of these, so what few
    of them need (CWEs, the bots for text matching) is made only when first needed.
    """

    __slots__ = (
        "bots", "cwes", "end", "first", "members", "number", "others", "source", "start",
        "stated",
    )  # fmt: skip

    def __init__(
        self,
        number: int,
        start: int,
        end: int,
        first: int,
        source: Source,
        member: NormalizedFinding,
    ) -> None:
        self.number = number
        self.first = first  # the input position of its first member: the output order
        self.members = [member]  # made whole: a list grown by append holds room for four
        self.start = start
        self.end = end
        self.stated: str | None = None  # the category stated by a member, if any
        self.cwes: dict[str, set[int]] | None = None  # per bot, its rules' CWE ids
        self.source = source  # the first member's source (bot, rule), at line `start`
        # any other member's source -> line, as the sweep found them (text matching keeps
        # `bots` instead: a dict per cluster it made took 50 bytes a finding, lineless)
        self.others: dict[Source, int] | None = None
        # its members' distinct bots once text matching asks, kept whole from then on: a
        # tuple, which takes a fifth of a set's memory and is searched as fast for a few
        self.bots: tuple[str, ...] | None = None


def finding_text(finding: NormalizedFinding) -> str:
    """The text compared for findings without a line: the title and the body beside it."""
    title, body = finding.title, finding.body
    if not body or body.startswith(title):
        return body or title
    return f"{title}\n{body}"


_title, _body, _members, _first = (
    attrgetter("title"),
    attrgetter("body"),
    attrgetter("members"),
    itemgetter(0),
)

Span = tuple[int, int, int, NormalizedFinding]  # line, end line, input position, finding
# A file's findings without a line and their input positions, apart: a (position,
# finding) pair each took 92 bytes a finding with its position's int, 8 in an array.
Lineless = tuple["array[int]", list[NormalizedFinding]]


def cluster(
    findings: Sequence[NormalizedFinding], window: int
) -> tuple[list[tuple[NormalizedFinding, ...]], list[tuple[str, ...]]]:
    """`findings` grouped into issues, and each issue's distinct bots, sorted.

    Each group is in sweep order, groups in the input order of their first members.
    """
    lined_of: dict[str, list[Span]] = {}
    lineless_of: dict[str, Lineless] = {}
    for index, finding in enumerate(findings):
        evidence = finding.evidence
        line = evidence.line
        if line is None:
            lineless = lineless_of.get(evidence.file)
            if lineless is None:
                lineless = lineless_of[evidence.file] = (array("q"), [])
            lineless[0].append(index)
            lineless[1].append(finding)
            continue
        spans = lined_of.get(evidence.file)
        if spans is None:
            spans = lined_of[evidence.file] = []
        spans.append((line, evidence.end_line or line, index, finding))  # indices never tie
    # Each file's clusters are done with as soon as they are complete, while in cache:
    # their members and bots go to the input position of their first member.
    members_at: list[tuple[NormalizedFinding, ...] | None] = [None] * len(findings)
    bots_at: list[tuple[str, ...] | None] = [None] * len(findings)
    alone: dict[str, tuple[str]] = {}  # clusters of one source share one tuple per bot
    sources: dict[Source, Source] = {}
    by_text = _ByText(sources)
    for file, spans in lined_of.items():
        swept = _sweep(spans, window, sources)
        spans.clear()  # freed now, while in cache, rather than all at once at the end
        lineless = lineless_of.get(file)
        if lineless is None:
            _place(swept, members_at, bots_at, alone)
        else:
            by_text.gather(swept, lineless)  # while the file's clusters are in cache
    for file, lineless in lineless_of.items():
        if file not in lined_of:
            by_text.gather([], lineless)
    for clusters in by_text.join():
        _place(clusters, members_at, bots_at, alone)
    if by_text.missed:
        warnings.warn(
            f"{by_text.missed:,} of {by_text.probes:,} findings without a line had more than"
            f" {CANDIDATES} clusters of their file sharing their rarest words; each was"
            f" compared with the {CANDIDATES} sharing the most of them, and a better match"
            " among the others may have been missed",
            QuorumWarning,
            stacklevel=4,
        )
    return list(filter(None, members_at)), list(filter(None, bots_at))


def _place(
    clusters: list[_Cluster],
    members_at: list[tuple[NormalizedFinding, ...] | None],
    bots_at: list[tuple[str, ...] | None],
    alone: dict[str, tuple[str]],
) -> None:
    """Complete clusters: their members (a tuple, as a consensus finding holds them) and
    distinct bots (sorted), at their first member's input position. `clusters` is emptied:
    each cluster and its list of members are freed as soon as its tuple is made, so the
    tuples never sit beside all the lists (lineless: 31 bytes a finding at the peak)."""
    while clusters:
        item = clusters.pop()
        bot = item.source[0]
        members_at[item.first] = tuple(item.members)
        bots, others = item.bots, item.others  # where text matching asked, its members' bots
        if bots is not None and len(bots) > 1:
            bots_at[item.first] = tuple(sorted(bots))
        elif bots is None and others is not None:  # the sweep's sources tell them
            bots_at[item.first] = tuple(sorted({bot, *map(_first, others)}))  # (bot, rule)
        else:  # one bot
            bots_at[item.first] = alone.get(bot) or alone.setdefault(bot, (bot,))


def _sweep(spans: list[Span], window: int, sources: dict[Source, Source]) -> list[_Cluster]:
    """One file's findings with a line, in line order, into clusters (see the module);
    `sources` holds one tuple per source, which the clusters share."""
    spans.sort()
    clusters: list[_Cluster] = []
    open_clusters: list[_Cluster] = []
    horizon = 0  # no open cluster ends (plus the window) before this line
    for start, end, index, finding in spans:
        if horizon < start and open_clusters:
            if len(open_clusters) == 1:  # the usual case, without a list or a generator
                reach = open_clusters[0].end + window
                if reach < start:
                    open_clusters, reach = [], start + window
                horizon = reach
            else:
                open_clusters = [item for item in open_clusters if item.end + window >= start]
                horizon = min((item.end for item in open_clusters), default=start) + window
        source = source_of(finding)
        stated = finding.category_certainty >= 1.0  # is_stated, inline: once per finding
        category, cwes = finding.category, finding.cwes
        target: _Cluster | None = None
        best_match, best_overlap = False, 0
        # The open cluster it overlaps most, a stated category agreeing first, the
        # earliest on ties (open clusters are in creation order).
        for item in open_clusters:
            if stated and (
                _walled(item, source[0], category, cwes)
                if cwes  # else _walled inline: the categories decide
                else item.stated is not None and item.stated != category and category != GENERIC
            ):
                continue
            if source == item.source:
                if item.start != start:
                    continue
            elif item.others is not None:
                line = item.others.get(source)
                if line is not None and line != start:
                    continue
            match = item.stated == category
            overlap = (end if end < item.end else item.end) - (
                start if start > item.start else item.start
            )
            if (
                target is None
                or match > best_match
                or (match == best_match and overlap > best_overlap)
            ):
                target, best_match, best_overlap = item, match, overlap
        if target is None:
            # one tuple per source among the clusters alive until text matching is done
            source = sources.setdefault(source, source)
            target = _Cluster(len(clusters), start, end, index, source, finding)
            clusters.append(target)
            open_clusters.append(target)
            horizon = min(horizon, end + window) if len(open_clusters) > 1 else end + window
        else:
            if end > target.end:  # never an earlier start: spans come in line order
                target.end = end
            if source != target.source:
                if target.others is None:
                    target.others = {source: start}
                else:
                    target.others.setdefault(source, start)
            target.members.append(finding)
        if stated:
            if cwes:
                _note_stated(target, finding)
            elif target.stated is None and category != GENERIC:  # _note_stated inline
                target.stated = category
    return clusters


def _walled(found: _Cluster, bot: str, category: str, cwes: tuple[int, ...]) -> bool:
    """Whether a finding of `bot` whose tool stated `category` and `cwes` is a different
    issue from `found`. Where both state CWEs, the CWEs decide: one tool's rules with
    disjoint CWEs are different issues, different tools' are one issue told apart by
    neighbouring CWEs. Otherwise a specific stated category other than the cluster's."""
    if cwes and found.cwes is not None:
        own = found.cwes.get(bot)
        return own is not None and own.isdisjoint(cwes)
    return found.stated is not None and category != GENERIC and found.stated != category


def _note_stated(found: _Cluster, finding: NormalizedFinding) -> None:
    """A member whose tool stated its category: the cluster's category and CWEs."""
    if finding.cwes:
        cwes = found.cwes
        if cwes is None:
            cwes = found.cwes = {}
        stated = cwes.get(finding.bot)
        if stated is None:
            cwes[finding.bot] = set(finding.cwes)
        else:
            stated.update(finding.cwes)
    if found.stated is None and finding.category != GENERIC:
        found.stated = finding.category


class _ByText:
    """Findings without a line into the clusters of their file, by text.

    Text takes part only where a file has findings without a line: those findings, and
    each lined cluster of their file through its first member, make the corpus whose
    document frequencies weigh every token. `gather` takes each such file as soon as its
    lined findings are swept, `join` then matches every file's findings without a line.
    """

    def __init__(self, sources: dict[Source, Source]) -> None:
        self.sources = sources  # one tuple per source, as the sweep's clusters share
        self.corpus = Corpus()
        self.files: list[tuple[list[_Cluster], Lineless, list[tuple[str, ...]], TextIndex]] = []
        self.probes = 0  # findings without a line matched by text
        self.missed = 0  # of them, those the bound on candidates may have matched elsewhere

    def gather(self, clusters: list[_Cluster], lineless: Lineless) -> None:
        """A file's lined clusters and its findings without a line: counted and indexed."""
        corpus = self.corpus
        # each text's tokens, kept (not its text) until its finding is matched
        probes = tokens_of_texts(list(map(finding_text, lineless[1])))
        index = TextIndex(corpus, set(chain.from_iterable(probes)))
        # Each lined cluster's first text, its tokens and the probed tokens it holds, each
        # list made in C (`found.number` is the cluster's position in `clusters`); then
        # index.reach inline.
        firsts = list(map(_first, map(_members, clusters)))
        lined = list(map(finding_text if any(map(_body, firsts)) else _title, firsts))
        lined_tokens = tokens_of_each(lined)
        corpus.count(lined_tokens)
        corpus.count(probes)
        reached = list(map(index.probed.intersection, lined_tokens))
        texts, postings = index.texts, index.postings
        for number in compress(range(len(reached)), reached):
            texts[number] = [lined_tokens[number]]
            for token in reached[number]:
                posting = postings.get(token)
                if posting is None:
                    postings[token] = [number]
                else:
                    posting.append(number)
        probes.reverse()  # popped as each finding is matched: its tokens are freed then
        self.files.append((clusters, lineless, probes, index))

    def join(self) -> Iterator[list[_Cluster]]:
        """Each gathered file's clusters, its findings without a line joined in."""
        files = self.files
        files.reverse()  # popped from the end, so each file's index is freed while in cache
        while files:
            # its index is freed before its clusters are placed, so that placing them
            # never adds to the index at the peak (lineless: 31 bytes a finding)
            yield self._join_file(*files.pop())

    def _join_file(
        self,
        clusters: list[_Cluster],
        lineless: Lineless,
        probes: list[tuple[str, ...]],
        index: TextIndex,
    ) -> list[_Cluster]:
        """A file's findings without a line (their tokens popped from `probes`, reversed)
        joined into its `clusters`."""
        sources = self.sources
        weigh, probe = self.corpus.weigh, probes.pop
        positions, findings = lineless
        for position, finding in zip(positions, findings, strict=True):
            tokens = probe()
            vector = weigh(tokens)
            candidates = index.candidates(vector)
            target = _best_by_text(finding, vector, clusters, index, candidates)
            if index.passed_over != [] and _missed(
                finding, vector, clusters, index, candidates, target
            ):
                self.missed += 1
            if target is None:
                source = source_of(finding)
                source = sources.setdefault(source, source)  # kept by its cluster
                target = _Cluster(len(clusters), 0, 0, position, source, finding)
                clusters.append(target)
            else:
                target.members.append(finding)
                bots = target.bots
                assert bots is not None  # `_best_by_text` made them for the cluster it chose
                if finding.bot not in bots:
                    target.bots = (*bots, finding.bot)
            if is_stated(finding):
                _note_stated(target, finding)
            index.add(target.number, tokens, vector)
        self.probes += len(findings)
        return clusters


def _missed(
    finding: NormalizedFinding,
    vector: Vector,
    clusters: list[_Cluster],
    index: TextIndex,
    candidates: list[int],
    chosen: _Cluster | None,
) -> bool:
    """Whether the bound on candidates, which left out `index.passed_over`, may have
    changed the match of `finding` (`chosen` among `candidates`): comparing every cluster
    that shares one of its probed words would choose another, or they are too many to
    check. The comparison changes nothing in the clusters (their sums are made as they
    would be anyway)."""
    passed_over = index.passed_over
    if passed_over is None:
        return True
    every = sorted([*candidates, *passed_over])
    return _best_by_text(finding, vector, clusters, index, every) is not chosen


def _best_by_text(
    finding: NormalizedFinding,
    vector: Vector,
    clusters: list[_Cluster],
    index: TextIndex,
    candidates: list[int],
) -> _Cluster | None:
    """The cluster among `candidates` (in cluster order) that `finding` joins, or None."""
    best: _Cluster | None = None
    best_key: tuple[bool, float] | None = None
    bot, category, cwes = finding.bot, finding.category, finding.cwes
    stated = is_stated(finding)  # a guessed category never walls
    similarity_to, sums, texts = index.similarity, index.sums, index.texts
    tokens, weights = list(vector), list(vector.values())
    for number in candidates:
        found = clusters[number]
        if stated and _walled(found, bot, category, cwes):  # first: a vector costs more
            continue
        total = sums.get(number)
        similarity = (  # index.similarity, inline once the cluster's sum is made
            similarity_to(number, vector)
            if total is None
            else fsum(map(mul, weights, map(total.get, tokens, repeat(0.0)))) / len(texts[number])
        )
        if similarity < TEXT_SIMILARITY:  # below either threshold: the bots need not be known
            continue
        bots = found.bots
        if bots is None:
            bots = found.bots = tuple({member.bot: None for member in found.members})
        if bot in bots and similarity < DUPLICATE_SIMILARITY:
            continue
        key = (found.stated == category, similarity)
        if best_key is None or key > best_key:
            best, best_key = found, key
    return best
