"""How the words of a yes/no claim are read: the subject the claim is about ("Does [a healthy
diet] in midlife lower ..."), what a comparison compares ("more [neurotoxic] than"), and
word roots that let two forms of one word meet ("smoking", "smokers"). Used by
`literature_question.read_question` and `mentions`."""

from __future__ import annotations

from biorag.loop.sentence_cues import stem
from biorag.understanding.intent import PLACEHOLDER
from biorag.understanding.question_words import words


def claim_subject(tokens: list[str], stop: frozenset[str], function: frozenset[str]) -> tuple[str, ...]:
    """The roots (`word_root`) of the words a yes/no question makes its claim about,
    read from the blanked question (`tokens`): after the opening verb, "whether" or "that" ("Is there evidence that
    ..."), past function words, the first word and at most one more, up to a function word,
    ask cue, participle or entity ("Does [a healthy diet] in midlife lower ...": healthy,
    diet; "Is [surgery] better than ..."; "Are [statins] associated ..."). A cited sentence
    must hold one of them. Empty when the subject is an entity: the entity is
    required anyway. Numbers are left to `numbers`. `stop`: words that name no topic;
    `function`: function and asking words."""
    leads = words("yes_no_leads")
    start = next((i + 1 for i, w in enumerate(tokens) if w in leads or w == "whether"), None)
    if start is None:
        return ()
    if "that" in tokens[start:start + 5]:
        start += tokens[start:start + 5].index("that") + 1
    if tokens[start:start + 1] and tokens[start] in PRONOUNS:
        return ()  # "X in the trauma patient: is it safe?": the subject is the title before
    run: list[str] = []
    for w in tokens[start:]:
        if w == PLACEHOLDER.strip():
            # "Does [losing BIN1] ...", "Is [serum IL-6] ...": the entity is the subject
            return ()
        if (not run and (w in function or w in stop)) or w.isdigit() or len(w) <= 2:
            continue  # numbers are `numbers`; "p" of "p-tau181" names nothing
        if run and (w in stop or w.endswith("ed") or len(run) == 2):
            break  # a verb's participle ("associated") or a third word is past the head
        run.append(w)
    return tuple(dict.fromkeys(word_root(w) for w in run))


#: words that stand for a subject named before ("Therapeutic anticoagulation: is it safe?")
PRONOUNS = frozenset({"it", "they", "this", "these", "that", "those", "he", "she", "we"})


def word_root(word: str) -> str:
    """A word without its ending ("statins": statin; "smoking", "smokers": smok;
    "supplementation": supplement; "vertebral": vertebr), so that two forms of one word meet
    (`same_root`) and two words that only begin alike do not ("kyphoplasty", "kyphosis")."""
    for suffix in ENDINGS:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


#: endings `word_root` takes off, the longest first
ENDINGS = ("ations", "ation", "ings", "ical", "osis", "ing", "ers", "ary", "ic", "al", "er", "es", "ed", "s", "e", "y")


def same_root(word: str, root: str) -> bool:
    """`word` is a form of the word whose root is `root`: their roots differ by at most two
    letters at the end ("smok", "smoker"; not "vertebr", "vertebroplasty")."""
    mine = word_root(word)
    short, long = sorted((mine, root), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 2)


def compared_word(tokens: list[str], stop: frozenset[str]) -> str:
    """The stem of what a comparison asks about: the topic word between a comparative and
    "than" ("Is amyloid-beta 43 [more neurotoxic] than ...", "bind copper with [higher
    affinity] than") or inside "as ... as" ("as [good] as"); "" when there is none ("better
    than"). A superlative ("the [most prevalent] form") keeps its "most" or "least": the
    sentence must say the same superlative, not just the word ("underestimates the
    prevalence")."""
    for i in range(len(tokens) - 2):
        if tokens[i] == "as" and tokens[i + 2] == "as" and tokens[i + 1] != PLACEHOLDER.strip():
            return stem(tokens[i + 1])
        if tokens[i] == "the" and tokens[i + 1] in ("most", "least") and is_topic_word(tokens[i + 2], stop):
            return f"{tokens[i + 1]} {stem(tokens[i + 2])}"
    if "than" not in tokens:
        return ""
    at = tokens.index("than")
    marks = [j for j in range(max(0, at - 3), at) if tokens[j] in COMPARATIVES or tokens[j].endswith("er")]
    if not marks:
        return ""
    between = [w for w in tokens[marks[0] + 1:at] if is_topic_word(w, stop)]
    return stem(between[-1]) if between else ""


def is_topic_word(w: str, stop: frozenset[str]) -> bool:
    return w not in stop and w != PLACEHOLDER.strip() and len(w) > 2 and not w.isdigit()


#: words that make a comparison with "than" (besides "-er" adjectives: "higher", "greater")
COMPARATIVES = frozenset({"more", "less", "fewer", "better", "worse"})
