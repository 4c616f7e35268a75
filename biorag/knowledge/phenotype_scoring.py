"""Phenotype-driven ranking of diseases and genes: the scoring math, no store.

A patient is a set of observed HPO terms (and maybe excluded ones, an onset, a sex). Each
disease is scored by a likelihood ratio in the spirit of LIRICAL, summed in log space over
the patient's features:

- an observed term q that the disease carries (itself or a more specific term, with
  frequency f): LR = f / P(q), where P(q) = exp(-IC(q)) is the share of diseases showing q;
- a term the disease does not carry: the most informative ancestor t of q that it does
  carry stands in, at a discount (``partial``): LR = partial x f x exp(IC(t)); the root
  gives ``partial``: a feature the disease does not explain costs log(partial);
- every LR is mixed with a noise floor (``noise``): a feature may be unrelated;
- an excluded term the disease carries typically (frequency f >= ``excluded_typical``):
  LR = 1 - excluded_weight x f; carried less often or at an unknown frequency, it raises the
  disease by ``excluded_relevance`` x its credit as an observed term (published cases name
  as absent what the diagnoses they weighed would show; `ScoringParams` gives the figures);
- a disease with many annotations loses log(n) x ``annotation_size`` (it matches more by chance),
  unless its name names every one of the patient's features (``named_size``,
  `biorag.knowledge.phenotype_naming`): the tie a single feature leaves is broken by the name, not the size;
- an onset or sex the disease cannot have lowers it (fixed factors, documented below).

A gene is ranked by its best single disease plus a bounded soft maximum of its others
(`support`), never by summing its diseases, raised (never lowered) to a mix (``gene_profile``)
with the score of its pooled profile: every feature credited by whichever of its diseases
explains it best. The constants are the fields of
`ScoringParams`; `biorag eval prioritise` chooses them by cross-validation over gene cohorts. `method="resnik"` is the best-match average of Resnik similarity, kept for
comparison. All arrays are built once per store (numpy); one case takes milliseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import numpy as np

from biorag.knowledge.gene_pools import pooled_scores
from biorag.knowledge.phenotype_naming import named_postings
from biorag.knowledge.phenotype_types import (
    HPO_LINK,
    ONSET_YEARS,
    X_DOMINANT,
    X_LINKED,
    X_RECESSIVE,
    Y_LINKED,
    DiseaseScore,
    GeneScore,
    Match,
    Patient,
    ScoringParams,
    frequency_fraction,
)


class PhenotypeModel:
    """The ontology and the annotations as arrays, built from plain rows (the store's tables).

    terms: (term number, HP id, name, IC over diseases); ancestors: (term, ancestor), with
    every term its own ancestor; annotations: (disease id, term number, frequency text) for
    observed phenotypes; names: disease id -> name; genes: (gene id, symbol, disease id[,
    catalogue]), HPO's own links first (their symbol is kept);
    modifiers: (disease id, HP id) of onset and inheritance annotations; named: disease id ->
    the term numbers its name names (`biorag.knowledge.phenotype_naming`)."""

    def __init__(self, terms: Iterable[tuple[int, str, str, float]], ancestors: Iterable[tuple[int, int]],
                 annotations: Iterable[tuple[str, int, str]], names: dict[str, str],
                 genes: Iterable[tuple[int, str, str]], modifiers: Iterable[tuple[str, str]] = (),
                 named: dict[str, set[int]] | None = None):
        rows = sorted(terms)
        self.term_ids = [r[1] for r in rows]
        self.term_names = [r[2] for r in rows]
        self.index = {r[1]: i for i, r in enumerate(rows)}
        num = {r[0]: i for i, r in enumerate(rows)}
        self.ic = np.array([r[3] for r in rows], dtype=np.float64)
        anc_lists: list[list[int]] = [[] for _ in rows]
        for t, a in ancestors:
            if t in num and a in num:
                anc_lists[num[t]].append(num[a])
        # ancestors of each term, least informative first (so later, richer ones overwrite)
        self.anc = [np.array(sorted(set(a), key=lambda j: self.ic[j]), dtype=np.int64) for a in anc_lists]
        self.anc_sets = [frozenset(a.tolist()) for a in self.anc]
        ann = [(d, num[t], f) for d, t, f in annotations if t in num]
        self.disease_ids = sorted({d for d, _, _ in ann})
        self.dindex = {d: i for i, d in enumerate(self.disease_ids)}
        self.names = {d: names.get(d, d) for d in self.disease_ids}
        self.annotated: list[list[tuple[int, float | None]]] = [[] for _ in self.disease_ids]
        for d, t, f in ann:
            self.annotated[self.dindex[d]].append((t, frequency_fraction(f)))
        self.gene_links: dict[int, list[int]] = {}
        self.symbols: dict[int, str] = {}
        self.disease_genes: list[list[str]] = [[] for _ in self.disease_ids]
        #: (gene id, disease index) -> the catalogues linking them (HPO's own links: HPO)
        self.link_sources: dict[tuple[int, int], list[str]] = {}
        for gid, sym, did, *source in sorted(genes):
            if did not in self.dindex:
                continue
            di = self.dindex[did]
            if (gid, di) not in self.link_sources:
                self.gene_links.setdefault(gid, []).append(di)
                self.symbols.setdefault(gid, sym)
                self.disease_genes[di].append(sym)
            self.link_sources.setdefault((gid, di), []).extend(source or [HPO_LINK])
        self._log_size = np.log(np.array([max(len(a), 1) for a in self.annotated], dtype=float))
        self.named_by = named_postings(named or {}, num, self.dindex)  # term -> diseases named after it
        self.onsets: list[list[tuple[float, float]]] = [[] for _ in self.disease_ids]
        self.inheritance: list[set[str]] = [set() for _ in self.disease_ids]
        for did, hp in modifiers:
            if did in self.dindex:
                if hp in ONSET_YEARS:
                    self.onsets[self.dindex[did]].append(ONSET_YEARS[hp])
                elif hp in (X_RECESSIVE, X_DOMINANT, X_LINKED, Y_LINKED) or hp.startswith("HP:"):
                    self.inheritance[self.dindex[did]].add(hp)
        self._postings(unknown=ScoringParams().unknown_frequency)

    def _postings(self, unknown: float) -> None:
        """For every term t: the diseases annotated with t or a descendant, and the highest
        frequency among those annotations (unknown frequencies count as `unknown`)."""
        d_idx, t_idx, freq = [], [], []
        for di, ann in enumerate(self.annotated):
            for t, f in ann:
                up = self.anc[t]
                d_idx.append(np.full(len(up), di, dtype=np.int64))
                t_idx.append(up)
                freq.append(np.full(len(up), np.nan if f is None else f))
        d = np.concatenate(d_idx)
        t = np.concatenate(t_idx)
        f = np.concatenate(freq)
        known = np.nan_to_num(f, nan=-1.0)
        order = np.lexsort((-known, d, t))  # by term, disease, highest known frequency first
        d, t, f = d[order], t[order], f[order]
        first = np.ones(len(d), dtype=bool)
        first[1:] = (t[1:] != t[:-1]) | (d[1:] != d[:-1])
        d, t, f = d[first], t[first], f[first]
        self._unknown = unknown
        bounds = np.searchsorted(t, np.arange(len(self.term_ids) + 1))
        self.post_d = [d[bounds[i]:bounds[i + 1]] for i in range(len(self.term_ids))]
        known = np.nan_to_num(f, nan=-1.0)
        self.post_f = [np.where(known[bounds[i]:bounds[i + 1]] < 0, unknown, known[bounds[i]:bounds[i + 1]])
                       for i in range(len(self.term_ids))]
        self.post_known = [known[bounds[i]:bounds[i + 1]] for i in range(len(self.term_ids))]

    # ---- scoring -------------------------------------------------------------------------
    def _term_values(self, q: int, params: ScoringParams) -> np.ndarray:
        """Per disease: the credit of observed term q (log LR, or Resnik IC for "resnik")."""
        best = np.zeros(len(self.disease_ids))
        for t in self.anc[q]:  # least informative first: the richest shared term wins
            ds, fs = self.post_d[t], self.post_f[t]
            if params.method == "resnik":
                val = np.full(len(ds), self.ic[t])
            else:
                scale = 1.0 if t == q else params.partial
                val = scale * fs ** params.frequency_power * np.exp(self.ic[t])
            best[ds] = np.maximum(best[ds], val)
        if params.method == "resnik":
            return best
        return np.log((1 - params.noise) * np.maximum(best, params.partial) + params.noise)

    def observed_values(self, patient: Patient, params: ScoringParams) -> dict[int, np.ndarray]:
        """Per observed term (index): its credit for every disease."""
        if params.unknown_frequency != self._unknown:
            self._postings(params.unknown_frequency)
        observed = dict.fromkeys(self.index[t] for t in patient.observed if t in self.index)
        return {q: self._term_values(q, params) for q in observed}

    def score_diseases(self, patient: Patient, params: ScoringParams, leave_out: Sequence[str] = (),
                       values: dict[int, np.ndarray] | None = None, context: np.ndarray | None = None) -> np.ndarray:
        """One score per disease (self.disease_ids order); -inf for diseases left out.
        `values` (observed_values) and `context` (`_context`) may be given when already known."""
        values = self.observed_values(patient, params) if values is None else values
        total = np.zeros(len(self.disease_ids))
        for v in values.values():
            total += v
        if params.method == "resnik":
            total /= max(len(values), 1)
        else:
            total += self._context(patient, params) if context is None else context
            size = params.annotation_size * self._log_size
            named = self._named_after(values, params)
            if len(named):
                size = size.copy()
                size[named] *= 1 - params.named_size
            total -= size
        total[self._left_out(leave_out)] = -np.inf
        return total

    def _named_after(self, values: dict[int, np.ndarray], params: ScoringParams) -> np.ndarray:
        """The diseases whose name names every observed term (their size penalty is waived
        by named_size)."""
        if not (params.named_size and values and all(q in self.named_by for q in values)):
            return np.zeros(0, dtype=np.int64)
        return functools.reduce(np.intersect1d, [self.named_by[q] for q in values])

    def _left_out(self, leave_out: Sequence[str]) -> list[int]:
        return [self.dindex[d] for d in leave_out if d in self.dindex]

    def _context(self, patient: Patient, params: ScoringParams) -> np.ndarray:
        """Per disease: what the excluded terms, the onset and the sex add (log LR)."""
        return self._excluded_values(patient, params) + self._modifier_penalty(patient, params)

    def _excluded_values(self, patient: Patient, params: ScoringParams) -> np.ndarray:
        """Per disease: what the patient's excluded terms add (log LR). A term the disease
        shows typically lowers it; shown less often (or at an unknown frequency), the term's
        positive credit as an observed term, times excluded_relevance, raises it."""
        out = np.zeros(len(self.disease_ids))
        for x in dict.fromkeys(self.index[t] for t in patient.excluded if t in self.index):
            ds, known = self.post_d[x], self.post_known[x]
            typical = known >= params.excluded_typical
            out[ds[typical]] += np.log(np.clip(1 - params.excluded_weight * known[typical], 1e-3, 1.0))
            if params.excluded_relevance:
                credit = params.excluded_relevance * np.maximum(self._term_values(x, params), 0.0)
                credit[ds[typical]] = 0.0
                out += credit
        return out

    def _modifier_penalty(self, patient: Patient, params: ScoringParams) -> np.ndarray:
        out = np.zeros(len(self.disease_ids))
        lo, hi = ONSET_YEARS.get(patient.onset or "", (None, None))
        if lo is None and patient.onset_age_years is not None:
            lo = hi = patient.onset_age_years
        if patient.age_years is not None:
            lo, hi = (lo if lo is not None else -1.0), min(hi if hi is not None else 200.0, patient.age_years)
        female = (patient.sex or "").upper() == "FEMALE"
        if lo is None and not female:
            return out
        for di in range(len(self.disease_ids)):
            if lo is not None and self.onsets[di] and not any(_overlaps((lo, hi), r) for r in self.onsets[di]):
                out[di] += np.log(params.onset_mismatch)
            inh = self.inheritance[di]
            if female and inh and inh <= {X_RECESSIVE, X_LINKED}:
                out[di] += np.log(params.female_x_recessive)
            if female and Y_LINKED in inh:
                out[di] += np.log(params.female_y_linked)
        return out

    # ---- ranking and explanations ------------------------------------------------------
    def _gene_index(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Genes (ids), and their diseases as one flat array with each gene's start."""
        if not hasattr(self, "_genes"):
            ids = sorted(self.gene_links)
            flat = np.array([d for g in ids for d in self.gene_links[g]], dtype=np.int64)
            starts = np.cumsum([0] + [len(self.gene_links[g]) for g in ids[:-1]])
            self._genes = (ids, flat, starts)
        return self._genes

    def _gene_scores(self, patient: Patient, params: ScoringParams, leave_out: Sequence[str] = (),
                     values: dict[int, np.ndarray] | None = None) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Gene ids, their scores and the disease scores. A gene's score: its best disease's,
        plus `params.support` times the log of how many of its diseases come near it
        (weighted by exp of their distance to the best); raised to the mix (`params.gene_profile`)
        with its pooled profile's score where that is higher. A pool that pays for many
        diseases' annotations never costs a gene its best disease (PAX6 for aniridia,
        cataract and nystagmus stays first)."""
        values = self.observed_values(patient, params) if values is None else values
        context = self._context(patient, params) if params.method == "lr" else None
        scores = self.score_diseases(patient, params, leave_out, values, context)
        ids, flat, starts = self._gene_index()
        per = scores[flat]
        best = np.maximum.reduceat(per, starts)
        out = best
        if params.support:
            counts = np.diff(np.append(starts, len(flat)))
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                near = np.nan_to_num(np.exp(per - np.repeat(best, counts)), nan=0.0)
                extra = np.log(np.add.reduceat(near, starts))
            out = np.where(np.isfinite(best), best + params.support * np.nan_to_num(extra, neginf=0.0), best)
        if params.gene_profile and params.method == "lr":
            pooled = pooled_scores(self, params, self._left_out(leave_out), values, context)
            with np.errstate(invalid="ignore"):
                mixed = (1 - params.gene_profile) * out + params.gene_profile * pooled
                out = np.where(np.isfinite(out), np.maximum(out, mixed), out)  # it raises a gene, never lowers it
        return ids, out, scores

    def rank_genes(self, patient: Patient, params: ScoringParams, top_k: int = 10,
                   leave_out: Sequence[str] = ()) -> list[GeneScore]:
        values = self.observed_values(patient, params)
        ids, best_of, scores = self._gene_scores(patient, params, leave_out, values)
        out = []
        order = self._gene_order(ids, best_of)[:top_k].tolist()
        for i in order:
            gid = ids[i]
            ds = sorted((d for d in self.gene_links[gid] if np.isfinite(scores[d])), key=lambda d: -scores[d])
            out.append(GeneScore(gid, self.symbols[gid], round(float(best_of[i]), 4),
                                 self.explain(ds[0], patient, params, scores, values),
                                 [(self.disease_ids[d], self.names[self.disease_ids[d]], round(float(scores[d]), 4))
                                  for d in ds[1:5]], list(self.link_sources[(gid, ds[0])])))
        return out

    def gene_ranks(self, patient: Patient, params: ScoringParams, leave_out: Sequence[str] = ()) -> dict[str, int]:
        """Symbol -> rank (1-based) over every linked gene, in the order `rank_genes` shows
        (score, then symbol: a tie is not counted in a gene's favour): what evaluation reads."""
        ids, best_of, _ = self._gene_scores(patient, params, leave_out)
        out: dict[str, int] = {}
        for n, i in enumerate(self._gene_order(ids, best_of).tolist(), 1):
            out.setdefault(self.symbols[ids[i]], n)  # a symbol of two gene ids: its first place
        return out

    def gene_rank(self, patient: Patient, params: ScoringParams, symbol: str,
                  leave_out: Sequence[str] = ()) -> int | None:
        """The rank `gene_ranks` gives `symbol` (None: not linked or not scored), without
        ordering every gene: what cross-validation reads, many times per case."""
        ids, best_of, _ = self._gene_scores(patient, params, leave_out)
        self._gene_order(ids, best_of[:0])  # builds the symbol order once
        scored = np.round(best_of, 9)
        ranks = [int((scored > scored[i]).sum() + ((scored == scored[i]) & (self._by_symbol < self._by_symbol[i])).sum())
                 + 1 for i in self._symbol_at.get(symbol, []) if np.isfinite(scored[i])]
        return min(ranks, default=None)

    def _gene_order(self, ids: list[int], best_of: np.ndarray) -> np.ndarray:
        """Gene positions by score, ties by symbol (the same order whatever top_k is asked)."""
        if not hasattr(self, "_by_symbol"):
            self._by_symbol = np.argsort(np.argsort([self.symbols[g] for g in ids]))
            self._symbol_at: dict[str, list[int]] = {}
            for i, g in enumerate(ids):
                self._symbol_at.setdefault(self.symbols[g], []).append(i)
        keep = np.flatnonzero(np.isfinite(best_of))
        return keep[np.lexsort((self._by_symbol[keep], -np.round(best_of[keep], 9)))]

    def rank_diseases(self, patient: Patient, params: ScoringParams, top_k: int = 10) -> list[DiseaseScore]:
        values = self.observed_values(patient, params)
        scores = self.score_diseases(patient, params, values=values)
        order = np.lexsort((np.arange(len(scores)), -scores))[:top_k]
        return [self.explain(int(i), patient, params, scores, values) for i in order]

    def explain(self, di: int, patient: Patient, params: ScoringParams, scores: np.ndarray,
                values: dict[int, np.ndarray] | None = None) -> DiseaseScore:
        """Which disease annotation explains each observed term (exact: the term or a more
        specific one; partial: through their most informative shared ancestor)."""
        ann = self.annotated[di]
        ann_anc = [(t, f, self.anc_sets[t]) for t, f in ann]
        out = DiseaseScore(self.disease_ids[di], self.names[self.disease_ids[di]], round(float(scores[di]), 4),
                           genes=list(self.disease_genes[di]))
        for tid in dict.fromkeys(patient.observed):
            q = self.index.get(tid)
            if q is None:
                continue
            value = float(values[q][di]) if values and q in values else float(self._term_values(q, params)[di])
            best = None  # (ic of shared term, frequency, annotation, shared)
            for t, f, up in ann_anc:
                shared = q if q in up else max((a for a in self.anc[q] if a in up), key=lambda a: self.ic[a],
                                               default=None)
                if shared is None:
                    continue
                key = (self.ic[shared], f if f is not None else params.unknown_frequency)
                if best is None or key > best[:2]:
                    best = (*key, t, shared)
            explained = value > 0 if params.method == "lr" else bool(best and best[0] >= 1.0)
            if best is None or not explained:
                out.unexplained.append(tid)
                continue
            out.matched.append(Match(tid, self.term_ids[best[2]], self.term_ids[best[3]],
                                     dict(ann).get(best[2]), bool(best[3] == q), round(value, 4)))
        for tid in dict.fromkeys(patient.excluded):
            x = self.index.get(tid)
            if x is None:
                continue
            # the postings `_excluded_values` scores with: this disease's highest known frequency
            ds, known = self.post_d[x], self.post_known[x]
            at = int(np.searchsorted(ds, di))
            if at == len(ds) or ds[at] != di:
                continue
            if known[at] >= params.excluded_typical:
                out.contradicted.append(tid)
            elif params.excluded_relevance:
                out.considered.append(tid)
        return out


def _overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Onset ranges overlap, with slack: labels are coarse and one category apart is common."""
    return a[0] <= b[1] * 2 + 1 and b[0] <= a[1] * 2 + 1
