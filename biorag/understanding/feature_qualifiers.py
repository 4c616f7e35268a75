"""The words a question puts before or after a patient's feature that qualify it rather than
name it: "congenital hypotonia", "seizures from birth", "severe seizures", "progressive
ataxia".

The phenotype dictionary matches the longest name it knows, so a qualifier that is part of
an HPO term's name ("Progressive cerebellar ataxia", "Severe hearing impairment",
"Congenital cataract") is read with it and never reaches this module. What is left was
dropped without a word. Now:

- an onset word ("congenital", "neonatal", "infantile", "childhood-onset", "juvenile",
  "adult-onset", "late-onset", "from birth", "in infancy") becomes the patient's onset, an
  HPO onset term (`ONSET_TERMS`) that the ranking already weighs
  (`biorag.knowledge.phenotype_scoring`: a disease whose annotated onsets cannot overlap it
  is lowered); when several are written, the earliest;
- a course or severity word ("progressive", "severe", "early-onset", which HPO has no onset
  term for) is named in the answer and the API's JSON as a qualifier the ranking did not
  use, beside the features no term matched: the ranking has no calibrated use for it.
"""

from __future__ import annotations

import re

from biorag.knowledge.phenotype_types import ONSET_YEARS
from biorag.understanding.typed_entities import Member

#: onset words -> (HP id, HPO name) of the onset term (HPO's Onset branch, HP:0003674)
ONSET_TERMS = {
    "antenatal": ("HP:0030674", "Antenatal onset"), "prenatal": ("HP:0030674", "Antenatal onset"),
    "fetal": ("HP:0011461", "Fetal onset"), "congenital": ("HP:0003577", "Congenital onset"),
    "birth": ("HP:0003577", "Congenital onset"), "neonatal": ("HP:0003623", "Neonatal onset"),
    "infantile": ("HP:0003593", "Infantile onset"), "infancy": ("HP:0003593", "Infantile onset"),
    "childhood": ("HP:0011463", "Childhood onset"), "juvenile": ("HP:0003621", "Juvenile onset"),
    "pediatric": ("HP:0410280", "Pediatric onset"), "paediatric": ("HP:0410280", "Pediatric onset"),
    "adult": ("HP:0003581", "Adult onset"), "adulthood": ("HP:0003581", "Adult onset"),
    "late": ("HP:0003584", "Late onset"),
}
#: onset words that qualify a feature only as "<word>-onset" or "<word> onset" ("adult
#: hypotonia" is not an onset; "late" alone is no qualifier)
_ONSET_ONLY_WITH_ONSET = {"adult", "late", "pediatric", "paediatric", "childhood"}
#: words that qualify a feature's course or severity; HPO has modifier terms for them, but the
#: ranking does not weigh a disease's course or severity, so they are named, not used.
#: "early" is here: "early-onset" spans several HPO onset terms
COURSE_WORDS = {"progressive", "severe", "mild", "moderate", "profound", "chronic", "acute", "recurrent",
                "episodic", "intermittent", "early", "slowly", "rapidly"}
#: every word that qualifies a feature, "onset" included (a phrase made of features and these
#: is a presentation, not a disease's name: biorag.understanding.phenotype_questions)
QUALIFIER_WORDS = frozenset(ONSET_TERMS) | COURSE_WORDS | {"onset"}
#: qualifier words written just before a feature (up to three: "early-onset progressive ataxia")
#: (no punctuation between: "feeding in infancy, optic atrophy" gives optic atrophy no onset)
_BEFORE = re.compile(r"((?:[A-Za-z]+(?:[\s-]+onset)?\s+){1,3})$", re.I)
#: onset phrases written just after a feature ("hypotonia from birth", "seizures in infancy")
_AFTER = re.compile(r"^\s+(?:(?:present\s+)?(?:from|at|since)\s+(birth)|(?:with\s+onset\s+)?in\s+"
                    r"(infancy|childhood|adulthood)|of\s+(\w+)\s+onset)\b", re.I)


def read_qualifiers(text: str, features: list[tuple[int, int]]) -> tuple[Member | None, list[str]]:
    """(the patient's onset as a member with its HPO onset id, or None; the course and
    severity qualifiers not used, each as "word (qualifier of feature)") for the features at
    (start, end) in `text`."""
    onsets: list[str] = []
    unused: list[str] = []
    ends = [0] + [end for _start, end in sorted(features)]
    for start, end in features:
        feature = text[start:end]
        # the words between the feature and the one before it, no further
        before = _BEFORE.search(text, max(e for e in ends if e <= start), start)
        words = re.findall(r"[A-Za-z]+(?:[\s-]+onset)?", before.group(1)) if before else []
        # read right to left: the words next to the feature qualify it; the first that does
        # not stops the reading ("patients with severe seizures": "with" stops it)
        for raw in reversed(words):
            word = raw.lower().split()[0].split("-")[0]
            with_onset = raw.lower() != word
            if word in ONSET_TERMS and (with_onset or word not in _ONSET_ONLY_WITH_ONSET):
                onsets.append(ONSET_TERMS[word][0])
            elif word in COURSE_WORDS:
                unused.append(f"{raw.lower()} (qualifier of {feature})")
            else:
                break
        if (after := _AFTER.match(text[end:])) is not None:
            word = next(g for g in after.groups() if g).lower()
            if word in ONSET_TERMS:
                onsets.append(ONSET_TERMS[word][0])
    onset = min(onsets, key=ONSET_YEARS.__getitem__) if onsets else None  # the earliest
    name = next((n for hp, n in ONSET_TERMS.values() if hp == onset), "")
    return (Member(name, onset) if onset else None), list(dict.fromkeys(unused))

