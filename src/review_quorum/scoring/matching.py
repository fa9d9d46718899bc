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
bot states each issue once and repeats itself nearly verbatim.

Categories: a category the tool stated (certainty 1.0) separates findings, as an analyser
rule's category does, and so do two rules of one analyser whose stated CWE ids share
nothing (its insecure random number is not its cross-site scripting on the same line;
different analysers tag one issue with neighbouring CWEs, so their CWEs never separate
findings); a category guessed from words
(certainty < 1.0) never does, it only breaks ties between candidate clusters. The result
depends only on the findings' order,
which `order="canonical"` makes canonical.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from review_quorum.model import NormalizedFinding
from review_quorum.scoring.text import Corpus, TextIndex, Vector

TEXT_SIMILARITY = 0.4
DUPLICATE_SIMILARITY = 0.7


class _Cluster:
    """One issue being gathered: its members, span, stated category, CWEs, sources, bots.

    A plain slotted class: a million findings make half a million of these.
    """

    __slots__ = ("bots", "cwes", "end", "members", "number", "sources", "start", "stated")

    def __init__(self, number: int, start: int, end: int) -> None:
        self.number = number
        self.members: list[int] = []
        self.start = start
        self.end = end
        self.stated: str | None = None  # the category stated by a member, if any
        self.cwes: dict[str, set[int]] = {}  # per bot, its rules' CWE ids
        self.sources: dict[tuple[str, str], int] = {}  # source -> its line
        self.bots: set[str] = set()


def finding_text(finding: NormalizedFinding) -> str:
    """The text compared for findings without a line: the title and the body beside it."""
    title, body = finding.title, finding.body
    if not body or body.startswith(title):
        return body or title
    return f"{title}\n{body}"


def cluster(findings: Sequence[NormalizedFinding], window: int) -> list[list[int]]:
    """Indices of `findings` grouped into issues, each group in input order."""
    by_file: dict[str, tuple[list[int], list[int]]] = {}  # lined, lineless
    for index, finding in enumerate(findings):
        evidence = finding.evidence
        split = by_file.get(evidence.file)
        if split is None:
            split = by_file[evidence.file] = ([], [])
        split[evidence.line is None].append(index)
    swept: list[tuple[list[_Cluster], list[int]]] = []
    for lined, lineless in by_file.values():
        swept.append((_sweep(findings, lined, window), lineless))
    # Text takes part only where a file has findings without a line: those findings, and
    # each lined cluster of their file through its first member.
    corpus = Corpus(
        finding_text(findings[index])
        for clusters, lineless in swept
        if lineless
        for index in (*(found.members[0] for found in clusters), *lineless)
    )
    groups: list[list[int]] = []
    for clusters, lineless in swept:
        if lineless:
            _join_by_text(findings, clusters, lineless, corpus)
        groups.extend(found.members for found in clusters)
    groups.sort(key=itemgetter(0))
    return groups


def _sweep(findings: Sequence[NormalizedFinding], lined: list[int], window: int) -> list[_Cluster]:
    spans = []
    for index in lined:
        finding = findings[index]
        evidence = finding.evidence
        line = evidence.line or 0
        spans.append((line, evidence.end_line or line, index, finding))  # indices never tie
    spans.sort()
    clusters: list[_Cluster] = []
    open_clusters: list[_Cluster] = []
    horizon = 0  # no open cluster ends (plus the window) before this line
    for start, end, index, finding in spans:
        if horizon < start and open_clusters:
            open_clusters = [found for found in open_clusters if found.end + window >= start]
            horizon = min((found.end for found in open_clusters), default=start) + window
        target = _best_by_overlap(finding, start, end, open_clusters) if open_clusters else None
        if target is None:
            target = _Cluster(len(clusters), start, end)
            clusters.append(target)
            open_clusters.append(target)
            horizon = min(horizon, end + window) if len(open_clusters) > 1 else end + window
        _add(target, finding, index, start, end)
    return clusters


def _best_by_overlap(
    finding: NormalizedFinding, start: int, end: int, candidates: list[_Cluster]
) -> _Cluster | None:
    best: _Cluster | None = None
    best_key: tuple[bool, int, int] | None = None
    source = (finding.bot, finding.rule_id)
    for found in candidates:
        if not _category_allows(found, finding):
            continue
        line = found.sources.get(source)
        if line is not None and line != start:
            continue
        overlap = min(end, found.end) - max(start, found.start)
        key = (found.stated == finding.category, overlap, -found.number)
        if best_key is None or key > best_key:
            best, best_key = found, key
    return best


def _category_allows(found: _Cluster, finding: NormalizedFinding) -> bool:
    """Stated categories must agree, and one analyser's rules must share a stated CWE."""
    if finding.category_certainty < 1.0:
        return True
    stated = found.cwes.get(finding.bot)
    if stated and finding.cwes and stated.isdisjoint(finding.cwes):
        return False
    return found.stated in (None, finding.category)


def _add(found: _Cluster, finding: NormalizedFinding, index: int, start: int, end: int) -> None:
    found.members.append(index)
    if start < found.start:
        found.start = start
    if end > found.end:
        found.end = end
    found.sources.setdefault((finding.bot, finding.rule_id), start)
    _note_kind(found, finding)


def _note_kind(found: _Cluster, finding: NormalizedFinding) -> None:
    found.bots.add(finding.bot)
    if finding.category_certainty >= 1.0:
        if finding.cwes:
            found.cwes.setdefault(finding.bot, set()).update(finding.cwes)
        if found.stated is None:
            found.stated = finding.category


def _join_by_text(
    findings: Sequence[NormalizedFinding],
    clusters: list[_Cluster],
    lineless: list[int],
    corpus: Corpus,
) -> None:
    texts = [finding_text(findings[position]) for position in lineless]
    probed = {token for text in texts for token in corpus.tokens(text)}
    index = TextIndex(corpus, probed)
    for found in clusters:  # a lined cluster is represented by its first member's text
        index.add(found.number, finding_text(findings[found.members[0]]))
    for position, text in zip(lineless, texts, strict=True):
        finding = findings[position]
        vector = corpus.vector(text)
        target = _best_by_text(finding, vector, clusters, index)
        if target is None:
            target = _Cluster(len(clusters), 0, 0)
            clusters.append(target)
        target.members.append(position)
        _note_kind(target, finding)
        index.add(target.number, text)


def _best_by_text(
    finding: NormalizedFinding, vector: Vector, clusters: list[_Cluster], index: TextIndex
) -> _Cluster | None:
    best: _Cluster | None = None
    best_key: tuple[bool, float] | None = None
    for number in index.candidates(vector):
        found = clusters[number]
        if not _category_allows(found, finding):
            continue
        similarity = index.similarity(number, vector)
        needed = DUPLICATE_SIMILARITY if finding.bot in found.bots else TEXT_SIMILARITY
        if similarity < needed:
            continue
        key = (found.stated == finding.category, similarity)
        if best_key is None or key > best_key:
            best, best_key = found, key
    return best
