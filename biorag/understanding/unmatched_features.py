"""The features of a listed presentation that no HPO term matched, kept and named.

A patient's features are listed ("presents with seizures, ataxia and a purple rash"); the
dictionary matches the ones it knows, and an item of the list that holds no known feature
was dropped without a word. It is kept here as a member of the symptom list with no HPO id
(`unmatched_members`): it ranks nothing, and the answer and the API's JSON name it, so the
asker knows what the ranking did not use.
"""

from __future__ import annotations

import re

from biorag.understanding.question_words import FILLER

#: what leads into a list in its first item ("A patient presents with A"; "features: A")
_LEAD = re.compile(r"^.*?\b(?:with|has|have|had|shows?|showing|showed|presents?|presenting|including|includes?|"
                   r"of|are|is|explain|explains|explaining|for|cause|causes|causing|underlie|underlies)\b\s*|^.*?:\s*", re.I)
#: words that ask rather than describe ("seizures, ataxia, which gene?")
_ASKING = {"which", "what", "who", "how", "why", "gene", "genes", "explain", "explains", "cause", "causes",
           "causing", "responsible", "candidate", "candidates", "diagnosis", "likely", "could", "would",
           "please", "thanks", "thank", "help", "disease", "diseases", "syndrome", "syndromes"}
#: a lead word left at the start once the lead-in is cut ("presents with": "with")
_LEAD_WORD = re.compile(r"^(?:with|has|have|had|shows?|showing|presents?|presenting|including|of|are|is)\b\s*", re.I)
#: words of a lead-in at the very start of a question ("which genes explain A, B"), not of a feature
_ASKER = _ASKING | {"patient", "child", "boy", "girl", "man", "woman", "he", "she", "has", "with", "presents"}
#: words that are no feature on their own
_EMPTY = {"a", "an", "the", "and", "or", "also", "hi", "hello", "hey", "dear", "ok", "so", "some", "mild", "other", "etc", "patient", "child", "boy", "girl"}
MAX_WORDS = 6


def _clean(item: str) -> str:
    item = re.split(r"\s[-\u2013\u2014]+\s", item)[0]  # "X - which genes?": the question after the dash
    while (m := _LEAD_WORD.match(item.strip())) is not None and m.group(0):
        item = item.strip()[m.end():]
    words = re.sub(r"^(?:and|or)\s+", "", item.strip(" .,;:!?\"'()"), flags=re.I).split()
    while words and words[0].lower() in ("a", "an", "the"):
        words = words[1:]
    return " ".join(words)


def unmatched_items(text: str, lists: list[list[tuple[int, int]]], features: list[tuple[int, int]],
                    gene_names: set[str]) -> list[str]:
    """The items of the feature lists of `text` that hold no matched feature (as written,
    lead-in words of the first item left out); items that name a gene, hold only filler or
    run past `MAX_WORDS` words are not features."""
    out: list[str] = []
    matched = [text[a:b].lower() for a, b in features]
    for items in lists:
        for n, (s, e) in enumerate(items):
            if any(s <= a < e or s < b <= e for a, b in features):
                continue
            item = text[s:e]
            if n == 0 and text[:s].rstrip().endswith(":"):
                pass  # "a patient with: A; B": the list holds only its items
            elif n == 0:
                lead = _LEAD.match(item)
                asking = lead is not None and bool(set(re.findall(r"[a-z]+", lead.group(0).lower())) & _ASKER)
                if lead is not None and lead.group(0).strip() and (text[:s].strip() or asking):
                    item = item[lead.end():]
                elif text[:s].strip():
                    continue  # words before the list, and no lead-in read: not an item
            name = _clean(item)
            words = [w.lower() for w in re.findall(r"[\w'\-]+", name)]
            # an item inside a matched feature's name ("anemia" beside "sideroblastic anemia") is
            # that feature said more broadly: the dictionary read it, it is no unmatched feature
            if (not words or len(words) > MAX_WORDS or name.lower() in gene_names or _ASKING & set(words)
                    or all(w in _EMPTY or w in FILLER for w in words) or any(name.lower() in m for m in matched)):
                continue
            out.append(name)
    return list(dict.fromkeys(out))
