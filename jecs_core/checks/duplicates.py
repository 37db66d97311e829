"""Duplicated items: identical score rows (to float noise), identical and near-duplicate texts, their clusters.

Storey-BH on max-p treats items as independent; copies and paraphrases of one item break that and, when
a cluster is contaminated, the realized contamination rate can exceed alpha (docs/GUARANTEES.md,
"Duplicated items"). Near-duplicates are found with MinHash LSH from ``datasketch`` (the ``text``
extra); without it, only exact copies are counted and a note says so."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._blocks import row_blocks
from .shingles import minhashes

TEXT_COLUMN = "text"
# Jaccard similarity of character 5-gram shingles above which two texts count as near-duplicates.
NEAR_THRESHOLD = 0.8
NUM_PERM = 64
# MinHash runs in Python per text: above this many test texts the near-duplicate pass is skipped (with a note).
NEAR_MAX_TEXTS = 50_000
CALIBRATION_COPY_SHARE = 0.2  # calibration rows: warn when at least this share of them repeat an earlier row
MISSING_EXTRA = "note: near-duplicate texts not checked: install the 'text' extra (pip install 'jecs[text]', datasketch)"


@dataclass(frozen=True)
class DuplicateReport:
    """Counts of duplicated test (and calibration) items and the test items' clusters.

    Each ``*_groups`` counts groups of two or more test items, each ``*_rows`` the test items in them.
    ``clusters`` labels every test item (0..n_clusters-1); items joined by any of the three
    relations share a label. ``notes`` say what could not be checked.
    """

    n: int
    m: int
    score_groups: int
    score_rows: int
    text_groups: int
    text_rows: int
    near_groups: int
    near_rows: int
    calibration_copies: int
    clusters: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def n_clusters(self) -> int:
        return int(self.clusters.max()) + 1 if self.n else 0

    @property
    def any(self) -> bool:
        return self.n_clusters < self.n

    def urn_note(self, *, clustered: bool = False) -> str:
        """What copies do to the post-hoc bound (:func:`jecs_core.posthoc.post_hoc_calibration_size`): exact
        ones, or any cluster when its items share the cluster's p-values (``clustered``)."""
        copies = self.exact or (clustered and self.any)
        return "; the post-hoc bound leaves out its calibration urn (closed testing alone)" if copies else ""

    @property
    def exact(self) -> bool:
        """Whether some test items share a score row or a text."""
        return bool(self.score_groups or self.text_groups)

    def warnings(self, *, clustered: bool = False) -> list[str]:
        """One line per finding; ``clustered``: the rules already keep or drop each cluster as one item."""
        found = []
        parts = [f"{rows} items in {groups} group{'s' if groups != 1 else ''} of {what}" for what, groups, rows in (
            ("identical score rows", self.score_groups, self.score_rows),
            ("identical texts", self.text_groups, self.text_rows),
            ("near-duplicate texts", self.near_groups, self.near_rows)) if groups]
        if parts:
            advice = ("each cluster is kept or dropped as one item, as asked, so alpha bounds the share of selected "
                      "clusters, not items, that are contaminated" if clustered else
                      "the rules treat items as independent and can exceed alpha when copies are contaminated together; "
                      "one hypothesis per cluster (jecs select --cluster duplicates, or the Select page's cluster toggle) "
                      "keeps or drops each cluster as one item (alpha then bounds the share of selected clusters, not "
                      "items, that are contaminated)")
            found.append(f"warning: duplicated test items: {'; '.join(parts)} ({self.n_clusters} clusters among "
                         f"{self.n} items); {advice}{self.urn_note(clustered=clustered)}")
        if self.m and self.calibration_copies >= CALIBRATION_COPY_SHARE * self.m:
            found.append(f"warning: {self.calibration_copies} of the m = {self.m} calibration rows repeat another "
                         "calibration row's scores; copies make the p-values too small and every rule can exceed alpha; "
                         "keep one row per distinct calibration item")
        return found + list(self.notes)

    def to_dict(self) -> dict:
        return {"score_groups": self.score_groups, "score_rows": self.score_rows, "text_groups": self.text_groups,
                "text_rows": self.text_rows, "near_groups": self.near_groups, "near_rows": self.near_rows,
                "n_clusters": self.n_clusters, "calibration_copies": self.calibration_copies}


def _groups(labels: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Groups of size >= 2 among ``labels``: (count, rows in them, edge sources, edge targets)."""
    if labels.size == 0 or labels.max() + 1 == labels.size:  # labels 0..L-1: L = size means no group
        return 0, 0, np.empty(0, int), np.empty(0, int)
    counts = np.bincount(labels)
    inside = counts[labels] > 1
    order = np.argsort(labels, kind="stable")
    same = labels[order][1:] == labels[order][:-1]  # consecutive items of one group: a chain joins the group
    return int((counts > 1).sum()), int(inside.sum()), order[:-1][same], order[1:][same]


def _same(column: np.ndarray) -> np.ndarray:
    return column + 0.0  # -0.0 becomes 0.0: equal values hash alike (and a copy, never the table itself)


def _noise_rounded(column: np.ndarray) -> np.ndarray:
    """``column`` rounded to float32's 24 significant bits, in float64 (so no score overflows as a cast would)."""
    mantissa, exponent = np.frexp(np.asarray(column, dtype=float))
    return np.ldexp(np.round(mantissa * 2.0**24) / 2.0**24, exponent) + 0.0


def row_hashes(values: np.ndarray, form=_same) -> np.ndarray:
    """A 64-bit hash of each row of ``form`` (per column) of ``values``: rows equal there hash alike."""
    hashed = np.zeros(values.shape[0], dtype=np.uint64)
    # A block of rows at a time, a column at a time: the buffers stay small beside the table's scores.
    for rows in row_blocks(values.shape[0]):
        block, into = values[rows], hashed[rows]
        for k in range(values.shape[1]):
            into *= np.uint64(0x100000001B3)
            into ^= pd.util.hash_array(form(block[:, k]))
    return hashed


def copy_labels(values: np.ndarray) -> np.ndarray:
    """:func:`row_labels` with each score rounded to float32's 24 significant bits: a text scored twice differs
    by float noise, yet its copies fall below the same calibration values together as exact copies do, which
    the post-hoc bound's urn cannot allow for (``docs/GUARANTEES.md``). Rounded a column at a time."""
    return row_labels(np.asarray(values, dtype=float), form=_noise_rounded)


def row_labels(values: np.ndarray, form=_same) -> np.ndarray:
    """One label per row, equal exactly for equal rows (``==``, so -0.0 ties 0.0, as ``np.unique`` ties them);
    ``form`` compares each column after a transform (:func:`copy_labels` rounds to float noise).

    A hash of each row, factorized. Rows with distinct hashes are distinct; where some rows share a
    hash, each row is checked against its group's first row, and the sort of ``np.unique(axis=0)``
    runs only if two different rows ever share a hash.
    """
    n = values.shape[0]
    if n == 0:
        return np.empty(0, int)
    hashed = row_hashes(values, form)
    ordered = np.sort(hashed)
    if (ordered[1:] != ordered[:-1]).all():  # no two rows share a hash, so no two rows are equal
        return np.arange(n)  # the labels factorize gives distinct values: their order of appearance
    del ordered
    labels = pd.factorize(hashed)[0]
    first = np.empty(labels.max() + 1, dtype=np.intp)
    first[labels[::-1]] = np.arange(values.shape[0])[::-1]  # the first row of each label
    at_first = first[labels]
    if all(np.array_equal(form(values[:, k]), form(values[at_first, k])) for k in range(values.shape[1])):
        return labels
    formed = np.column_stack([form(values[:, k]) for k in range(values.shape[1])])  # two rows shared a hash: rare
    return np.unique(formed, axis=0, return_inverse=True)[1].ravel()


def normalised(texts) -> pd.Series:
    """Texts in Unicode's composed form (NFC) with runs of white space made one space; a missing or
    blank text becomes ``None``. NFC: an accented letter typed as one code point or as a letter and a
    combining mark is one text, as a reader sees it."""
    series = pd.Series(texts, dtype=object)
    present = series.notna().to_numpy()
    joined = series[present].astype(str).str.normalize("NFC").str.split().str.join(" ")
    out = pd.Series(None, index=series.index, dtype=object)
    out[present] = joined.where(joined != "", None).to_numpy(dtype=object)
    return out


_SEEN_LOCK = threading.Lock()
_SEEN: dict[int, tuple] = {}  # id(table) -> (weak reference, column, texts): the last two tables' test texts


def normalised_test_texts(table, column: str = TEXT_COLUMN) -> pd.Series:
    """The test items' texts in ``column`` as :func:`normalised` gives them, once per table.

    The duplicate search and the search for copies of calibration items both read them, and on
    a million texts the white-space pass takes seconds.
    """
    with _SEEN_LOCK:
        held = _SEEN.get(id(table))
        if held is not None and held[0]() is table and held[1] == column:
            return held[2]
    texts = normalised(table.test_extra[column].to_numpy())
    with _SEEN_LOCK:
        while len(_SEEN) >= 2:
            _SEEN.pop(next(iter(_SEEN)))
        _SEEN[id(table)] = (weakref.ref(table), column, texts)
    return texts


def _text_labels(texts: pd.Series) -> np.ndarray:
    """Equal labels for equal texts; each missing text gets a label of its own (unknown, so no copy)."""
    labels = pd.factorize(texts, use_na_sentinel=True)[0]
    missing = labels < 0
    if missing.any():
        labels = labels.copy()
        labels[missing] = labels.max(initial=-1) + 1 + np.arange(int(missing.sum()))
        labels = pd.factorize(labels)[0]  # back to labels in order of appearance, as _groups expects
    return labels


def _near_edges(texts: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    from datasketch import MinHashLSH

    present = np.flatnonzero(texts.notna().to_numpy())  # a missing text is like no other
    hashes = list(minhashes(texts.iloc[present].str.lower(), num_perm=NUM_PERM))
    lsh = MinHashLSH(threshold=NEAR_THRESHOLD, num_perm=NUM_PERM)
    for j, h in enumerate(hashes):
        lsh.insert(j, h)
    src, dst = [], []
    for j, h in enumerate(hashes):
        for other in lsh.query(h):
            if other > j and h.jaccard(hashes[other]) >= NEAR_THRESHOLD:
                src.append(j)
                dst.append(other)
    return present[np.asarray(src, int)], present[np.asarray(dst, int)]


def near_duplicate_pairs(texts) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(i, j)``, ``i < j``, of texts whose character-shingle Jaccard similarity is at least
    :data:`NEAR_THRESHOLD` (white space and letter case ignored; an exact copy is a pair too).

    Needs ``datasketch`` (the ``text`` extra): ``ImportError`` without it.
    """
    return _near_edges(normalised(texts))


def _components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    if len(src) == 0:  # no duplicates: every item is its own cluster, numbered as the graph search numbers them
        return np.arange(n)
    from scipy.sparse import coo_matrix  # scipy.sparse costs a tenth of a second to import: only when needed
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def near_pass_limited(table, near_max: int, *, text_column: str = TEXT_COLUMN) -> bool:
    """Whether ``find_duplicates(table, near_max=near_max)`` leaves out a near-duplicate pass that
    ``jecs select`` (``near_max=NEAR_MAX_TEXTS``) would run: the table has texts, more test items than
    ``near_max`` and no more than :data:`NEAR_MAX_TEXTS`."""
    return text_column in table.test_extra.columns and near_max < table.n <= NEAR_MAX_TEXTS


def find_duplicates(table, *, text_column: str = TEXT_COLUMN, near: bool = True,
                    near_max: int = NEAR_MAX_TEXTS) -> DuplicateReport:
    """Duplicated items of ``table``: identical score rows, identical and near-duplicate texts.

    Parameters
    ----------
    table : ScoreTable
    text_column : str
        Carried column holding each item's text (checked only when present).
    near : bool
        Look for near-duplicate texts (MinHash LSH, Jaccard >= ``NEAR_THRESHOLD`` on character
        5-grams) as well as identical ones.
    near_max : int
        Above this many test texts the near-duplicate pass is skipped, and a note says so.

    Returns
    -------
    DuplicateReport
    """
    n, notes = table.n, []
    score_groups, score_rows, src, dst = _groups(copy_labels(table.test))
    edges_src, edges_dst = [src], [dst]
    text_groups = text_rows = near_groups = near_rows = 0
    if text_column in table.test_extra.columns and n:
        texts = normalised_test_texts(table, text_column)
        exact = _text_labels(texts)
        text_groups, text_rows, src, dst = _groups(exact)
        edges_src.append(src)
        edges_dst.append(dst)
        if near and n > near_max:
            elsewhere = f"; jecs select checks up to {NEAR_MAX_TEXTS:,}" if near_pass_limited(table, near_max, text_column=text_column) else ""
            notes.append(f"note: near-duplicate texts not checked above {near_max:,} test items (n = {n:,}){elsewhere}")
        elif near:
            try:
                src, dst = _near_edges(texts)
            except ImportError:
                notes.append(MISSING_EXTRA)
            else:
                labels = _components(n, src, dst)
                # Count near-duplicate groups beyond exact copies: groups whose texts are not all identical.
                near_only = pd.Series(exact).groupby(labels).nunique().to_numpy() > 1
                near_groups, near_rows = int(near_only.sum()), int(near_only[labels].sum())
                edges_src.append(src)
                edges_dst.append(dst)
    clusters = _components(n, np.concatenate(edges_src), np.concatenate(edges_dst)) if n else np.empty(0, int)
    cal_distinct = int(row_labels(table.calibration).max()) + 1 if table.m else 0
    return DuplicateReport(n=n, m=table.m, score_groups=score_groups, score_rows=score_rows, text_groups=text_groups,
                           text_rows=text_rows, near_groups=near_groups, near_rows=near_rows,
                           calibration_copies=table.m - cal_distinct, clusters=clusters, notes=tuple(notes))
