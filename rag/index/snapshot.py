"""What the embedded index's queries read: every chunk's vector, languages, visibility and BM25 postings.

A snapshot is built once from the SQLite tables (the durable record) and written beside the index
file as plain NumPy arrays in `<index>.snapshot/gen-<generation>/`, where `generation` is a token
every write transaction renews. A process that opens an unchanged index memory-maps those files
instead of re-reading a million rows: opening costs milliseconds, and only the pages a query
touches are resident.

Vectors are kept twice: int8 codes with one scale per row (a quarter of float32; one pass over
them gives every approximate cosine) and float32 (read only for the few rows a query keeps, so
those cosines stay exact). Each language's nearest chunks are the best `RESCORE` x limit rows by
the int8 cosine, re-ranked by the exact one. Small indexes (below `exact_rows`) skip the codes and
multiply the float32 matrix directly: cheaper there, and every cosine exact.

Each row's hub term (`hubs`: its cosine to the corpus centroid, see `rag.retrieve.ranking`) is computed
here, when the snapshot of a new generation is built: every index run that changed anything moves the
centroid a little and renews every row's term in one O(rows x dim) pass, so an incremental run never
leaves the old chunks' terms measured against a corpus that no longer exists.
"""
from __future__ import annotations

import json
import mmap
import os
import shutil
import time
import uuid
from pathlib import Path

import numpy as np

from rag.index import postings
from rag.text.language import LANGUAGES

RESCORE = 4  # rows shortlisted by the int8 cosine per row kept; rescored exactly
# Rows converted from int8 to float32 at a time, into one buffer (6 MB): small enough to stay in cache
# between the conversion and the product, which measured twice as fast as 16k-row blocks at 1M.
BLOCK = 4096
EXACT_ROWS = 50_000  # up to this many rows every cosine comes from the float32 matrix
STALE_BUILD_SECONDS = 3600  # a half-written snapshot this old was left by a crashed process


def quantize(vectors: np.ndarray, codes: np.ndarray, scales: np.ndarray) -> None:
    """int8 codes and per-row scales (vector ~= code * scale) into the given arrays, block by block."""
    for start in range(0, len(vectors), BLOCK):
        block = np.asarray(vectors[start : start + BLOCK], np.float32)
        peak = np.abs(block).max(axis=1) if block.size else np.zeros(len(block), np.float32)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        codes[start : start + BLOCK] = np.rint(block / scale[:, None]).astype(np.int8)
        scales[start : start + BLOCK] = scale


class Snapshot:
    """Row-aligned arrays (in memory or memory-mapped) and the queries over them."""

    def __init__(self, arrays: dict[str, np.ndarray], channel_values: list[str], exact_rows: int = EXACT_ROWS):
        # Plain ndarray views of the mapped files: np.memmap's subclass hooks cost more than a 1k-row product.
        arrays = {name: np.asarray(array) for name, array in arrays.items()}
        self.ids = arrays["ids"]  # ascending chunk ids: a row's position is a binary search away
        self.vectors, self.codes, self.scales = arrays["vectors"], arrays["codes"], arrays["scales"]
        self.masks = {lang: arrays[f"lang_{lang}"] for lang in LANGUAGES if f"lang_{lang}" in arrays}
        self._channel_of, self._channel_values = arrays["channel_of"], channel_values
        self._public = np.isin(self._channel_of, [n for n, v in enumerate(channel_values) if v == "*"])
        self._visible: dict[str, np.ndarray] = {}
        self.postings = postings.Postings.from_arrays({k[9:]: v for k, v in arrays.items() if k.startswith("postings_")})
        self._exact = len(self.ids) <= exact_rows
        # Snapshot files written before hub terms existed: computed once here (one pass over the vectors).
        self.hubs = arrays["hubs"] if "hubs" in arrays else hub_terms(self.vectors, self.masks)

    def background_hub(self, mask: np.ndarray | None = None) -> tuple[float, float]:
        """The mean and standard deviation of the masked rows' hub terms (all rows without a mask)."""
        values = self.hubs if mask is None else self.hubs[mask]
        return (float(values.mean()), float(values.std())) if len(values) else (0.0, 0.0)

    @property
    def size(self) -> int:
        return len(self.ids)

    def positions(self, ids) -> dict[int, int]:
        """Row positions of these chunk ids (those present)."""
        wanted = np.fromiter(ids, np.int64)
        if not self.size:
            return {}
        at = np.searchsorted(self.ids, wanted)
        found = (at < len(self.ids)) & (self.ids[np.minimum(at, len(self.ids) - 1)] == wanted)
        return dict(zip(wanted[found].tolist(), at[found].tolist()))

    def cosines(self, query: np.ndarray) -> np.ndarray:
        """Every row's cosine with the query: exact below `exact_rows`, else from the int8 codes."""
        if self._exact:
            return np.asarray(self.vectors @ query, np.float32)
        out = np.empty(self.size, np.float32)
        buffer = np.empty((min(BLOCK, self.size), self.codes.shape[1]), np.float32)
        for start in range(0, self.size, BLOCK):
            codes = self.codes[start : start + BLOCK]
            block = buffer[: len(codes)]
            block[...] = codes
            np.multiply(block @ query, self.scales[start : start + BLOCK], out=out[start : start + BLOCK])
        return out

    def exact(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosines of a few rows (pages of the float32 file read for them only)."""
        rows = np.asarray(rows, np.int64)
        order = np.argsort(rows)  # ascending reads from the mapped file
        out = np.empty(len(rows), np.float32)
        out[order] = np.asarray(self.vectors[rows[order]], np.float32) @ query
        return out

    def visible(self, tokens: list[str] | str | None) -> np.ndarray:
        """The rows an audience may see (a channel and, in a direct message, the asker's `user:` token; public
        rows for none); cached per audience."""
        if isinstance(tokens, str):
            tokens = [tokens]
        if not tokens:
            return self._public
        key = " ".join(tokens)
        mask = self._visible.get(key)
        if mask is None:
            needles = [f" {t} " for t in tokens]
            allowed = [n for n, v in enumerate(self._channel_values) if v == "*" or any(x in v for x in needles)]
            if len(self._visible) >= 4096:  # one entry per asker in direct messages: bounded
                self._visible.clear()
            mask = self._visible[key] = np.isin(self._channel_of, allowed)
        return mask

    def keyword(self, terms: list[str], visible: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(row id, BM25 score) of the `limit` best visible matches, best first."""
        if not terms:
            return []
        scores = self.postings.scores(terms)
        rows = np.flatnonzero((scores > 0) & visible)
        return [(int(self.ids[n]), float(scores[n])) for n in _top(scores, rows, limit)]

    def nearest(self, cosines: np.ndarray, query: np.ndarray, mask: np.ndarray, limit: int) -> list[int]:
        """Row ids of the `limit` highest exact cosines among the masked rows, best first. From int8
        cosines, the best `RESCORE` x limit rows are shortlisted and re-ranked exactly."""
        rows = np.flatnonzero(mask)
        if self._exact:
            return [int(self.ids[n]) for n in _top(cosines, rows, limit)]
        shortlist = _top(cosines, rows, limit * RESCORE)
        exact = self.exact(query, shortlist)
        best = np.argsort(-exact, kind="stable")[:limit]
        return [int(self.ids[n]) for n in shortlist[best]]


def hub_terms(vectors: np.ndarray, masks: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's cosine to the centroid: the mean of each language's mean vector, so the language with
    more chunks does not define what "close to everything" means. Block by block (the rows may be mapped)."""
    rows, dim = vectors.shape if vectors.ndim == 2 else (0, 0)
    if rows == 0:
        return np.zeros(rows, np.float32)
    total, sums = np.zeros(dim, np.float64), {lang: np.zeros(dim, np.float64) for lang in masks}
    for start in range(0, rows, BLOCK):
        block = np.asarray(vectors[start : start + BLOCK], np.float64)
        total += block.sum(axis=0)
        for lang, mask in masks.items():
            sums[lang] += block[mask[start : start + BLOCK]].sum(axis=0)
    means = [sums[lang] / count for lang, mask in masks.items() if (count := int(mask.sum()))]
    centroid = (np.mean(means, axis=0) if means else total / rows).astype(np.float32)
    out = np.empty(rows, np.float32)
    for start in range(0, rows, BLOCK):
        out[start : start + BLOCK] = np.asarray(vectors[start : start + BLOCK], np.float32) @ centroid
    return out


def _top(values: np.ndarray, rows: np.ndarray, limit: int) -> np.ndarray:
    """The rows with the `limit` highest values, best first."""
    if len(rows) > limit:
        rows = rows[np.argpartition(-values[rows], limit - 1)[:limit]]
    return rows[np.argsort(-values[rows], kind="stable")]


class SnapshotFiles:
    """The memory-mapped snapshots beside one index file, one directory per generation."""

    def __init__(self, index_path: str):
        self.root = Path(index_path + ".snapshot")

    def open(self, generation: str, exact_rows: int = EXACT_ROWS) -> Snapshot | None:
        """The snapshot of this generation, mapped, if one was written (its directory is complete or absent)."""
        folder = self.root / f"gen-{generation}"
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            arrays = {name: _load(folder / f"{name}.npy") for name in meta["arrays"]}
        except (OSError, ValueError, KeyError):
            return None
        return Snapshot(arrays, meta["channels"], exact_rows)

    def writer(self) -> "SnapshotWriter":
        """Somewhere to write a new snapshot (renamed into place by `SnapshotWriter.publish`)."""
        return SnapshotWriter(self.root / f"tmp-{uuid.uuid4().hex}")

    def publish(self, writer: "SnapshotWriter", generation: str) -> None:
        """Move a finished snapshot into place and remove older generations (a process still mapping
        one keeps its pages until it lets go; only the names disappear)."""
        target = self.root / f"gen-{generation}"
        assert writer.folder is not None, "an in-memory snapshot has nothing to publish"
        try:
            os.rename(writer.folder, target)
        except OSError:  # another process published this generation first: keep theirs
            shutil.rmtree(writer.folder, ignore_errors=True)
        for folder in self.root.iterdir():
            stale = folder.name.startswith("tmp-") and time.time() - folder.stat().st_mtime > STALE_BUILD_SECONDS
            if folder != target and (folder.name.startswith("gen-") or stale):
                shutil.rmtree(folder, ignore_errors=True)

    def remove(self) -> None:
        """Every snapshot of this index (the index file itself is going)."""
        shutil.rmtree(self.root, ignore_errors=True)


def _load(path: Path) -> np.ndarray:
    array = np.load(path, mmap_mode="r")
    if array.size == 0:
        return np.asarray(array)
    if path.name == "vectors.npy" and hasattr(mmap, "MADV_RANDOM"):
        # Only the few rows a query rescores are read: without this, the kernel's read-ahead around
        # each one paged in the whole float32 file (1.5 GB resident at 1M chunks after 100 queries).
        array._mmap.madvise(mmap.MADV_RANDOM)
    return array


class SnapshotWriter:
    """Arrays allocated as .npy files in a private folder (or in memory, with no folder)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.arrays: dict[str, np.ndarray] = {}
        if folder is not None:
            folder.mkdir(parents=True)

    def array(self, name: str, dtype, shape) -> np.ndarray:
        """A zeroed array to fill; file-backed (pages written out as they fill) when there is a folder."""
        if self.folder is None or 0 in tuple(np.atleast_1d(shape)):  # NumPy cannot map an empty array
            out = np.zeros(shape, dtype)
        else:
            out = np.lib.format.open_memmap(self.folder / f"{name}.npy", "w+", dtype, shape)
        self.arrays[name] = out
        return out

    def put(self, name: str, values: np.ndarray) -> None:
        self.array(name, values.dtype, values.shape)[...] = values

    def finish(self, channel_values: list[str], exact_rows: int = EXACT_ROWS) -> Snapshot:
        """The snapshot as written (the files flushed and described, when file-backed)."""
        if self.folder is not None:
            for name, array in self.arrays.items():
                if isinstance(array, np.memmap):
                    array.flush()
                else:
                    np.save(self.folder / f"{name}.npy", array)
            (self.folder / "meta.json").write_text(json.dumps({"arrays": sorted(self.arrays),
                                                               "channels": channel_values}), encoding="utf-8")
        return Snapshot(self.arrays, channel_values, exact_rows)


def build(db, dim: int, writer: SnapshotWriter, title_weight: float, exact_rows: int = EXACT_ROWS) -> Snapshot:
    """Read every chunk from the tables in one read transaction (a consistent picture) into `writer`."""
    db.execute("BEGIN")
    try:
        count = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        vectors = writer.array("vectors", np.float32, (count, dim))
        ids = writer.array("ids", np.int64, (count,))
        langs, channels, terms = [], [], []
        rows = db.execute("SELECT c.id, c.langs, c.channels, c.terms, v.embedding FROM chunks c "
                          "JOIN chunks_vec v ON v.rowid = c.id ORDER BY c.id")
        n = 0
        for n, (rowid, lang, channel, term, embedding) in enumerate(rows, 1):
            vectors[n - 1] = np.frombuffer(embedding, np.float32)
            ids[n - 1] = rowid
            langs.append(lang)
            channels.append(channel)
            terms.append(term)
    finally:
        db.execute("COMMIT")
    if n != count:  # a chunk without a vector (never written so, but the join says what is searchable)
        writer.arrays["vectors"], writer.arrays["ids"] = np.array(vectors[:n]), np.array(ids[:n])
    codes, scales = writer.array("codes", np.int8, (n, dim)), writer.array("scales", np.float32, (n,))
    quantize(writer.arrays["vectors"], codes, scales)
    tags = [set(t.split()) for t in langs]
    for lang in LANGUAGES:
        mask = np.fromiter((lang in t for t in tags), bool, n)
        if mask.any():
            writer.put(f"lang_{lang}", mask)
    masks = {lang: writer.arrays[f"lang_{lang}"] for lang in LANGUAGES if f"lang_{lang}" in writer.arrays}
    writer.put("hubs", hub_terms(writer.arrays["vectors"], masks))
    values: dict[str, int] = {}
    writer.put("channel_of", np.fromiter((values.setdefault(c, len(values)) for c in channels), np.int32, n))
    for name, array in postings.Postings(terms, title_weight).arrays().items():
        writer.put(f"postings_{name}", array)
    return writer.finish(list(values), exact_rows)
