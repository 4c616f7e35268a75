"""What a build did to its collection, PMID by PMID, so verification can hold the
collection to it: which PMIDs it left there (upserted and not deleted since) and which it
removed (deleted and not upserted since).

Two bitmaps, one bit per PMID (PubMed's ~40M PMIDs take ~5 MB each), plus a set for the
rare PMID beyond the bitmap's range, and reservoir samples of upserted and deleted PMIDs
that verification reads back. Saved next to the job file at each checkpoint, so a resumed
build still knows what its earlier runs wrote. Saving a ledger that is ahead of the job
file is harmless: replaying the same upserts and deletes in order sets the same bits.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np

BITMAP_LIMIT = 1 << 30  # PMIDs at or above this go to a set (a bitmap would be 128 MB)
SAMPLE = 64


class _Bits:
    def __init__(self, data: bytes = b"", extra: set[int] | None = None):
        self.bits = np.frombuffer(data, dtype=np.uint8).copy() if data else np.zeros(0, np.uint8)
        self.extra = set(extra or ())

    def _grow(self, top: int) -> None:
        need = top // 8 + 1
        if need > self.bits.size:
            self.bits = np.concatenate([self.bits, np.zeros(max(need, self.bits.size * 2) - self.bits.size, np.uint8)])

    def set(self, pmids: np.ndarray, on: bool) -> None:
        small = pmids[pmids < BITMAP_LIMIT]
        for p in pmids[pmids >= BITMAP_LIMIT].tolist():
            (self.extra.add if on else self.extra.discard)(p)
        if small.size == 0:
            return
        self._grow(int(small.max()))
        idx, mask = small >> 3, (1 << (small & 7)).astype(np.uint8)
        if on:
            np.bitwise_or.at(self.bits, idx, mask)
        else:
            np.bitwise_and.at(self.bits, idx, ~mask)

    def has(self, pmid: int) -> bool:
        if pmid >= BITMAP_LIMIT:
            return pmid in self.extra
        i = pmid >> 3
        return i < self.bits.size and bool(self.bits[i] & (1 << (pmid & 7)))

    def count(self) -> int:
        return int(np.unpackbits(self.bits).sum()) + len(self.extra)


class PmidLedger:
    def __init__(self):
        self.live, self.gone = _Bits(), _Bits()
        self.sample_up: list[int] = []
        self.sample_del: list[int] = []
        self.seen_up = self.seen_del = 0
        self._rng = random.Random(0)

    def upserted(self, pmids: list[int]) -> None:
        a = np.asarray(pmids, dtype=np.int64)
        self.live.set(a, True)
        self.gone.set(a, False)
        self.seen_up = self._reservoir(self.sample_up, pmids, self.seen_up)

    def deleted(self, pmids: list[int]) -> None:
        a = np.asarray(pmids, dtype=np.int64)
        self.live.set(a, False)
        self.gone.set(a, True)
        self.seen_del = self._reservoir(self.sample_del, pmids, self.seen_del)

    def _reservoir(self, sample: list[int], pmids: list[int], seen: int) -> int:
        for p in pmids:
            seen += 1
            if len(sample) < SAMPLE:
                sample.append(int(p))
            else:
                j = self._rng.randrange(seen)
                if j < SAMPLE:
                    sample[j] = int(p)
        return seen

    @property
    def live_count(self) -> int:
        return self.live.count()

    @property
    def gone_count(self) -> int:
        return self.gone.count()

    def present_sample(self, n: int) -> list[int]:
        """PMIDs the collection must hold (upserted, not deleted since)."""
        return sorted({p for p in self.sample_up if self.live.has(p)})[:n]

    def absent_sample(self, n: int) -> list[int]:
        """PMIDs the collection must not hold (deleted, not upserted since)."""
        return sorted({p for p in self.sample_del if self.gone.has(p)})[:n]

    # ---- persistence (next to the job file) --------------------------------------------

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        head = json.dumps({"sample_up": self.sample_up, "sample_del": self.sample_del, "seen_up": self.seen_up,
                           "seen_del": self.seen_del, "live_extra": sorted(self.live.extra),
                           "gone_extra": sorted(self.gone.extra), "live_bytes": int(self.live.bits.size)}).encode()
        with open(tmp, "wb") as f:
            f.write(len(head).to_bytes(8, "little") + head)
            f.write(self.live.bits.tobytes())
            f.write(self.gone.bits.tobytes())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> PmidLedger | None:
        """The saved ledger, or None when there is none (or it is unreadable)."""
        led = cls()
        try:
            raw = path.read_bytes()
            n = int.from_bytes(raw[:8], "little")
            head = json.loads(raw[8 : 8 + n])
            body = raw[8 + n :]
            k = int(head["live_bytes"])
            led.live = _Bits(body[:k], set(head["live_extra"]))
            led.gone = _Bits(body[k:], set(head["gone_extra"]))
            led.sample_up, led.sample_del = list(head["sample_up"]), list(head["sample_del"])
            led.seen_up, led.seen_del = int(head["seen_up"]), int(head["seen_del"])
        except (OSError, ValueError, KeyError):
            return None
        return led
