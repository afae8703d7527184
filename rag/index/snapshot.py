"""What the embedded index's queries read: every chunk's vector, languages, visibility and BM25 postings.

A snapshot is built once from the SQLite tables (the durable record) and written beside the index
file as plain NumPy arrays in `<index>.snapshot/gen-<generation>/`, where `generation` is a token
every write transaction renews. A process that opens an unchanged index memory-maps those files
instead of re-reading a million rows: opening costs milliseconds, and only the pages a query
touches are resident.

Small indexes (up to `exact_rows`) map the float32 matrix and multiply it directly: every cosine
exact, and cheaper there than anything cleverer. A large index keeps, besides the float32 file:
- sign bits of each vector minus the corpus mean (48 bytes a row at 384 dimensions, one thirty-second
  of float32), mapped: one pass of XOR and popcount over them ranks every row by the angle between
  centred vectors, and each language's best `SHORTLIST` rows (at least `RESCORE` x limit) are
  re-ranked by their exact cosines;
- the float32 rows of those shortlists, read with `os.preadv` (`RowFile`), never mapped: they come
  through the page cache, shared and reclaimable, and a query's few thousand random rows never
  accumulate in the process's resident memory as a mapping's pages do (1.3 GB after 100 queries at
  1M chunks with int8 codes and a mapped float32 file);
- each language's first and second moments (sum of the vectors, sum of their outer products): the
  mean and standard deviation of the query's cosine over a language's chunks, which the ranker
  normalises with, are q.m1/n and q'M2q/n - mean^2, exact without touching a row.

Each row's hub term (`hubs`: its cosine to the corpus centroid, see `rag.retrieve.ranking`) is computed
here, when the snapshot of a new generation is built: every index run that changed anything moves the
centroid a little and renews every row's term in one O(rows x dim) pass, so an incremental run never
leaves the old chunks' terms measured against a corpus that no longer exists.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import time
import uuid
from pathlib import Path

import numpy as np

from rag.index import postings
from rag.text.language import LANGUAGES

FORMAT = 2  # the files' layout (1: int8 codes; 2: sign bits and moments); another layout is rebuilt
RESCORE = 25  # rows shortlisted by the sign bits per row kept, at least ...
SHORTLIST = 2048  # ... and at least this many per language: all re-ranked by their exact cosines
BLOCK = 4096  # rows of a mapped matrix read at a time while building
SCAN_BLOCK = 65_536  # rows of sign bits compared at a time (a few MB of scratch, reused)
EXACT_ROWS = 50_000  # up to this many rows every cosine comes from the float32 matrix
STALE_BUILD_SECONDS = 3600  # a half-written snapshot this old was left by a crashed process
ALL = "all"  # the moments' key for every row (as in the files' names: m0_all.npy)


def sign_bits(vectors: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Each row's signs after subtracting `centre`, packed into 64-bit words (zero-padded)."""
    rows, dim = vectors.shape
    words = -(-dim // 64)
    packed = np.zeros((rows, words * 8), np.uint8)
    if rows:
        packed[:, : -(-dim // 8)] = np.packbits(vectors > centre, axis=1)
    return packed.view(np.uint64)


class RowFile:
    """Rows of a float32 .npy matrix read with `os.preadv` into a fresh array: the page cache serves
    them, and they never become the process's resident pages as a mapping's would."""

    def __init__(self, path: Path):
        self._file = open(path, "rb")  # closed with this object (a replaced snapshot lets go of it)
        try:
            version = np.lib.format.read_magic(self._file)
            reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = reader(self._file)
            if fortran or np.dtype(dtype) != np.dtype("<f4") or len(shape) != 2:
                raise ValueError(f"{path} is not a row-major float32 matrix")
        except BaseException:
            self._file.close()
            raise
        self.shape, self._offset, self._fd = tuple(shape), self._file.tell(), self._file.fileno()

    def read(self, rows: np.ndarray) -> np.ndarray:
        """These rows (any order, repeats allowed), as one C-ordered float32 array."""
        dim = self.shape[1]
        out = np.empty((len(rows), dim), np.float32)
        size, base, fd = dim * 4, self._offset, self._fd
        view = memoryview(out.data).cast("B")
        for n, row in enumerate(rows.tolist()):
            if _read_into(fd, view[n * size : (n + 1) * size], base + row * size) != size:
                raise OSError(f"short read of row {row} from {self._file.name}")
        return out

    def close(self) -> None:
        self._file.close()


def _pread_copy(fd: int, buffer: memoryview, offset: int) -> int:
    """`os.preadv` where the platform has none: one copy more."""
    data = os.pread(fd, len(buffer), offset)
    buffer[: len(data)] = data
    return len(data)


_read_into = (lambda fd, buffer, offset: os.preadv(fd, [buffer], offset)) if hasattr(os, "preadv") else _pread_copy


def moments(vectors: np.ndarray, masks: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per language (and ALL): [count], the vectors' sum, the sum of their outer products (float64)."""
    rows, dim = vectors.shape
    keys = [ALL] + [lang for lang, mask in masks.items() if not mask.all()]  # a language of every row is ALL's
    first = {key: np.zeros(dim, np.float64) for key in keys}
    second = {key: np.zeros((dim, dim), np.float64) for key in keys}
    for start in range(0, rows, BLOCK):
        block = np.asarray(vectors[start : start + BLOCK], np.float32)
        for key in keys:
            part = block if key == ALL else block[masks[key][start : start + BLOCK]]
            first[key] += part.sum(axis=0, dtype=np.float64)
            second[key] += part.T @ part
    out: dict[str, np.ndarray] = {}
    for key in keys:
        out[f"m0_{key}"] = np.array([rows if key == ALL else int(masks[key].sum())], np.int64)
        out[f"m1_{key}"], out[f"m2_{key}"] = first[key], second[key]
    for lang in masks:
        if lang not in keys:
            for order in ("m0", "m1", "m2"):
                out[f"{order}_{lang}"] = out[f"{order}_{ALL}"]
    return out


class Snapshot:
    """Row-aligned arrays (in memory or memory-mapped) and the queries over them."""

    def __init__(self, arrays: dict[str, np.ndarray], channel_values: list[str], exact_rows: int = EXACT_ROWS,
                 rows: RowFile | None = None):
        # Plain ndarray views of the mapped files: np.memmap's subclass hooks cost more than a 1k-row product.
        arrays = {name: np.asarray(array) for name, array in arrays.items()}
        self.ids = arrays["ids"]  # ascending chunk ids: a row's position is a binary search away
        # A small index's ids as Python ints, and each one's row: per-query lookups without NumPy calls.
        self._ids = self.ids.tolist() if len(self.ids) <= exact_rows else None
        self._row_of = {i: n for n, i in enumerate(self._ids)} if self._ids is not None else None
        # Absent (empty) when a large index's rows are read through `rows` instead.
        self.vectors = arrays["vectors"] if "vectors" in arrays else np.zeros((0, 0), np.float32)
        self._rows = rows
        self.masks = {lang: arrays[f"lang_{lang}"] for lang in LANGUAGES if f"lang_{lang}" in arrays}
        self._channel_of, self._channel_values = arrays["channel_of"], channel_values
        self._public = np.isin(self._channel_of, [n for n, v in enumerate(channel_values) if v == "*"])
        self._visible: dict[str, np.ndarray] = {}
        self.postings = postings.Postings.from_arrays({k[9:]: v for k, v in arrays.items() if k.startswith("postings_")})
        self._exact = len(self.ids) <= exact_rows
        if not self._exact:
            self.centre, self.bits = arrays["centre"], arrays["bits"]
            self._moments = {key[3:]: (int(arrays[key][0]), arrays[f"m1_{key[3:]}"], arrays[f"m2_{key[3:]}"])
                             for key in arrays if key.startswith("m0_")}
        # Snapshot files written before hub terms existed: computed once here (one pass over the vectors).
        self.hubs = arrays["hubs"] if "hubs" in arrays else hub_terms(self.vectors, self.masks)
        self._hub_background: dict[str | None, tuple[float, float]] = {}
        self._covers = {lang: bool(mask.all()) for lang, mask in self.masks.items()}  # every row has it
        # Chunk rows queries read from the tables while this snapshot was fresh (rag.index.embedded._chunks).
        self.chunk_rows: dict[int, tuple] = {}
        self.rows_complete = False  # chunk_rows holds every row (a small index's, read at once)

    def background_hub(self, lang: str | None = None) -> tuple[float, float]:
        """The mean and standard deviation of a language's rows' hub terms (every row's for None); the
        hub terms change only with the snapshot, so each is computed once."""
        cached = self._hub_background.get(lang)
        if cached is None:
            values = self.hubs if lang is None else self.hubs[self.masks[lang]]
            cached = (float(values.mean()), float(values.std())) if len(values) else (0.0, 0.0)
            self._hub_background[lang] = cached
        return cached

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def exact_scan(self) -> bool:
        """Whether `scores` are exact cosines (a small index) or sign-bit agreements (a large one)."""
        return self._exact

    def positions(self, ids) -> dict[int, int]:
        """Row positions of these chunk ids (those present)."""
        if self._row_of is not None:
            row_of = self._row_of
            return {i: row_of[i] for i in ids if i in row_of}
        wanted = np.fromiter(ids, np.int64)
        if not self.size:
            return {}
        at = np.searchsorted(self.ids, wanted)
        found = (at < len(self.ids)) & (self.ids[np.minimum(at, len(self.ids) - 1)] == wanted)
        return dict(zip(wanted[found].tolist(), at[found].tolist()))

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Every row's score against the query, for ranking: the exact cosine below `exact_rows`, else
        how many sign bits of the centred vectors agree (higher is closer)."""
        if self._exact:
            return np.asarray(self.vectors @ query, np.float32)
        qbits = sign_bits(query[None, :], self.centre)[0]
        words = self.bits.shape[1]
        out = np.empty(self.size, np.int16)
        scratch = np.empty((min(SCAN_BLOCK, self.size), words), np.uint64)
        counts = np.empty(scratch.shape, np.uint8)
        for start in range(0, self.size, SCAN_BLOCK):
            block = self.bits[start : start + SCAN_BLOCK]
            n = len(block)
            np.bitwise_xor(block, qbits, out=scratch[:n])
            np.bitwise_count(scratch[:n], out=counts[:n])
            np.sum(counts[:n], axis=1, dtype=np.int16, out=out[start : start + n])
        np.subtract(words * 64, out, out=out)
        return out

    def cosines(self, query: np.ndarray) -> np.ndarray:
        """Every row's exact cosine with the query (small indexes; a large one's would read every row)."""
        assert self._exact, "a large snapshot ranks by sign bits; exact cosines are read for shortlists only"
        return self.scores(query)

    def exact(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosines of a few rows: read from the float32 file for them only."""
        rows = np.asarray(rows, np.int64)
        order = np.argsort(rows)  # ascending reads
        out = np.empty(len(rows), np.float32)
        out[order] = self.rows(rows[order]) @ query
        return out

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The float32 vectors of these rows, as a fresh C-ordered array (read or gathered alike)."""
        if self._rows is not None:
            return self._rows.read(rows)
        return np.ascontiguousarray(self.vectors[rows], np.float32)

    def background(self, scores: np.ndarray, query: np.ndarray, lang: str | None) -> tuple[float, float, int]:
        """Mean, standard deviation and count of the query's cosine over a language's rows (every row's
        for None): from the exact cosines on a small index, from the moments on a large one."""
        if self._exact:
            values = scores if lang is None else scores[self.masks[lang]]
            return (float(values.mean()), float(values.std()), len(values)) if len(values) else (0.0, 0.0, 0)
        count, first, second = self._moments[ALL if lang is None else lang]
        if not count:
            return 0.0, 0.0, 0
        q = query.astype(np.float64)
        mean = float(q @ first) / count
        return mean, math.sqrt(max(float(q @ second @ q) / count - mean * mean, 0.0)), count

    def backgrounds(self, scores: np.ndarray, query: np.ndarray) -> dict[str | None, tuple[float, float, int]]:
        """`background` of every language and of every row (None); a language every row has shares the
        figures of every row (computed once)."""
        every = self.background(scores, query, None)
        out: dict[str | None, tuple[float, float, int]] = {
            lang: every if self._covers[lang] else self.background(scores, query, lang) for lang in self.masks}
        out[None] = every
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

    def chunk_ids(self, rows: np.ndarray) -> list[int]:
        """The chunk ids of these rows, as Python ints."""
        if self._ids is not None:
            ids = self._ids
            return [ids[n] for n in rows.tolist()]
        return self.ids[rows].tolist()

    def keyword(self, terms: list[str], visible: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(row id, BM25 score) of the `limit` best visible matches, best first."""
        if not terms:
            return []
        scores = self.postings.scores(terms)
        rows = np.flatnonzero((scores > 0) & visible)
        top = _top(scores, rows, limit)
        return list(zip(self.chunk_ids(top), scores[top].tolist()))

    def nearest(self, scores: np.ndarray, query: np.ndarray, mask: np.ndarray,
                limit: int) -> tuple[list[int], np.ndarray | None]:
        """Row ids of the `limit` highest exact cosines among the masked rows, best first, and (on a large
        index, where they were read) those cosines. There the best `SHORTLIST` (at least `RESCORE` x
        limit) rows by sign-bit agreement are shortlisted and re-ranked exactly."""
        rows = np.flatnonzero(mask)
        if self._exact:
            return self.chunk_ids(_top(scores, rows, limit)), None
        shortlist = _top(scores, rows, max(limit * RESCORE, SHORTLIST))
        exact = self.exact(query, shortlist)
        best = np.argsort(-exact, kind="stable")[:limit]
        return self.chunk_ids(shortlist[best]), exact[best]

    def close(self) -> None:
        """Let go of the row file (mapped arrays go with their last reference)."""
        if self._rows is not None:
            self._rows.close()


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

    def folder(self, generation: str) -> Path:
        """Where the snapshot of this generation lives (the layout's number in the name: another
        docbot's files for the same tables are left to it and rebuilt here)."""
        return self.root / f"gen-{generation}.{FORMAT}"

    def open(self, generation: str, exact_rows: int = EXACT_ROWS) -> Snapshot | None:
        """The snapshot of this generation, mapped, if one was written (its directory is complete or absent).
        A large one's float32 rows are read through a `RowFile`, not mapped."""
        folder = self.folder(generation)
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            names = set(meta["arrays"])
            arrays = {name: _load(folder / f"{name}.npy") for name in names - {"vectors"}}
            rows = None
            if len(arrays["ids"]) <= exact_rows:
                arrays["vectors"] = _load(folder / "vectors.npy")
            elif not {"bits", "centre", f"m0_{ALL}"} <= names:  # written for a small index: rebuilt
                return None
            else:
                rows = RowFile(folder / "vectors.npy")
        except (OSError, ValueError, KeyError):
            return None
        return Snapshot(arrays, meta["channels"], exact_rows, rows)

    def writer(self) -> "SnapshotWriter":
        """Somewhere to write a new snapshot (renamed into place by `SnapshotWriter.publish`)."""
        return SnapshotWriter(self.root / f"tmp-{uuid.uuid4().hex}")

    def publish(self, writer: "SnapshotWriter", generation: str) -> None:
        """Move a finished snapshot into place and remove older generations (a process still mapping
        one keeps its pages until it lets go; only the names disappear)."""
        target = self.folder(generation)
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
    return np.asarray(array) if array.size == 0 else array


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

    def put(self, name: str, values: np.ndarray) -> np.ndarray:
        out = self.array(name, values.dtype, values.shape)
        out[...] = values
        return out

    def put_all(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {name: self.put(name, values) for name, values in arrays.items()}

    def finish(self, channel_values: list[str], exact_rows: int = EXACT_ROWS) -> Snapshot:
        """The snapshot as written (the files flushed and described, when file-backed)."""
        if self.folder is not None:
            for name, array in self.arrays.items():
                if isinstance(array, np.memmap):
                    array.flush()
                else:
                    np.save(self.folder / f"{name}.npy", array)
            (self.folder / "meta.json").write_text(json.dumps({"format": FORMAT, "arrays": sorted(self.arrays),
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
    tags = [set(t.split()) for t in langs]
    for lang in LANGUAGES:
        mask = np.fromiter((lang in t for t in tags), bool, n)
        if mask.any():
            writer.put(f"lang_{lang}", mask)
    masks = {lang: writer.arrays[f"lang_{lang}"] for lang in LANGUAGES if f"lang_{lang}" in writer.arrays}
    vectors = writer.arrays["vectors"]
    writer.put("hubs", hub_terms(vectors, masks))
    if n > exact_rows:  # what a large index's queries read instead of every float32 row
        sums = writer.put_all(moments(vectors, masks))
        centre = writer.put("centre", (sums[f"m1_{ALL}"] / max(n, 1)).astype(np.float32))
        bits = writer.array("bits", np.uint64, (n, -(-dim // 64)))
        for start in range(0, n, BLOCK):
            bits[start : start + BLOCK] = sign_bits(np.asarray(vectors[start : start + BLOCK]), centre)
    values: dict[str, int] = {}
    writer.put("channel_of", np.fromiter((values.setdefault(c, len(values)) for c in channels), np.int32, n))
    for name, array in postings.Postings(terms, title_weight).arrays().items():
        writer.put(f"postings_{name}", array)
    return writer.finish(list(values), exact_rows)
