"""A team's own prompts as counterfactual tests: find the protected attribute a prompt mentions, swap it.

For each prompt, the mentions of a markup's communities are found in every form the library knows for
them (``library/data/communities``: "a woman", "una mujer", "del hombre", "musulmán", "el Marroc", the
communities' first names), longest first, and each other community of the list is written in the same
form: the forms carry the agreement (Spanish "un musulmán" becomes "un cristiano", not "un cristiana").
For gender, the words that mark it (he/she, his/her, husband/wife; él/ella, su marido/su mujer,
hijo/hija; ell/ella, fill/filla …) are swapped too, with the article or demonstrative before a swapped
noun (el/la, un/una, este/esta, aquest/aquesta; Catalan "l'home" / "la dona").

What the swapper cannot be sure of is listed for review and not sent: a Spanish or Catalan prompt where
a swapped word is followed by a word that may agree with it ("mi hija está cansada"), a community
without the form a mention uses. A prompt that mentions no community is reported as such: it can only
be tested by adding the attribute (fairness through unawareness).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langbite.library.communities import NAME_FORM, merge, render, shipped
from langbite.model import Community

#: Gendered words per language: (male, female); swapped both ways. Ambiguous ones (es "mujer" is also
#: "wife") map one way only, listed in ONE_WAY.
GENDER_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("he", "she"), ("him", "her"), ("his", "her"), ("himself", "herself"), ("man", "woman"),
           ("men", "women"), ("boy", "girl"), ("boys", "girls"), ("husband", "wife"), ("boyfriend", "girlfriend"),
           ("son", "daughter"), ("sons", "daughters"), ("father", "mother"), ("dad", "mom"), ("brother", "sister"),
           ("brothers", "sisters"), ("uncle", "aunt"), ("nephew", "niece"), ("grandfather", "grandmother"),
           ("mr", "ms"), ("mr.", "ms."), ("sir", "madam"), ("gentleman", "lady"), ("male", "female"),
           ("fiancé", "fiancée"), ("king", "queen"), ("actor", "actress"), ("waiter", "waitress")),
    "es": (("él", "ella"), ("hombre", "mujer"), ("hombres", "mujeres"), ("chico", "chica"), ("chicos", "chicas"),
           ("niño", "niña"), ("niños", "niñas"), ("marido", "mujer"), ("esposo", "esposa"), ("novio", "novia"),
           ("hijo", "hija"), ("hijos", "hijas"), ("padre", "madre"), ("hermano", "hermana"), ("tío", "tía"),
           ("abuelo", "abuela"), ("sobrino", "sobrina"), ("señor", "señora"), ("don", "doña"),
           ("compañero", "compañera"), ("vecino", "vecina"), ("jefe", "jefa"), ("amigo", "amiga")),
    "ca": (("ell", "ella"), ("home", "dona"), ("homes", "dones"), ("noi", "noia"), ("nois", "noies"),
           ("nen", "nena"), ("nens", "nenes"), ("marit", "dona"), ("espòs", "esposa"), ("nuvi", "núvia"),
           ("fill", "filla"), ("fills", "filles"), ("pare", "mare"), ("germà", "germana"), ("oncle", "tia"),
           ("avi", "àvia"), ("nebot", "neboda"), ("senyor", "senyora"), ("company", "companya"),
           ("veí", "veïna"), ("amic", "amiga")),
}
ONE_WAY = {("es", "mujer"): "hombre", ("ca", "dona"): "home"}  # "wife" and "woman": back to "man", never "husband"
#: Determiners before a gendered noun (male, female), swapped with the noun.
DETERMINERS: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (("el", "la"), ("los", "las"), ("un", "una"), ("unos", "unas"), ("este", "esta"), ("estos", "estas"),
           ("ese", "esa"), ("esos", "esas"), ("aquel", "aquella"), ("del", "de la"), ("al", "a la"),
           ("otro", "otra"), ("nuestro", "nuestra"), ("vuestro", "vuestra"), ("mismo", "misma")),
    "ca": (("el", "la"), ("els", "les"), ("un", "una"), ("uns", "unes"), ("aquest", "aquesta"),
           ("aquests", "aquestes"), ("aquell", "aquella"), ("del", "de la"), ("al", "a la"), ("meu", "meva"),
           ("teu", "teva"), ("seu", "seva"), ("nostre", "nostra"), ("altre", "altra")),
}
#: After a swapped Spanish or Catalan word, a word with these endings may agree with it: review the variant.
AGREEING = {"es": re.compile(r"^\w+(?:[oa]s?)$"), "ca": re.compile(r"^\w+(?:a|es|ada|ades|at|ats)$")}
NOT_AGREEING = frozenset(["para", "nada", "casa", "cosa", "vida", "esta", "era", "una", "unas", "la", "las", "lo", "los", "con", "como", "sobre", "entre", "hasta", "ahora", "nunca", "todo", "toda", "pero", "porque", "cada", "otra", "otro", "mucho", "poca", "poco", "muy", "mejor", "peor", "ya", "sea", "pregunta", "ayuda", "trabajo", "tiempo", "empresa", "persona", "personas", "caso", "puesto", "resposta", "feina", "casa", "sobre", "cada", "aquesta", "aquesta", "una", "les", "amb", "per", "però"])
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)


@dataclass(frozen=True)
class Variant:
    """A prompt written for one community: sent when ``review`` is empty, listed for review otherwise."""

    group: str
    text: str
    review: tuple[str, ...] = ()


@dataclass(frozen=True)
class Swapped:
    """A prompt, the community it mentions (None: none found) and its counterfactual variants."""

    prompt: str
    group: str | None
    variants: tuple[Variant, ...]

    @property
    def sent(self) -> tuple[Variant, ...]:
        """The original and every sure variant: the counterfactual set whose answers are compared."""
        return tuple(v for v in self.variants if not v.review)


def _case(like: str, text: str) -> str:
    return text[:1].upper() + text[1:] if like[:1].isupper() else text


def _surfaces(language: str, markup: str, communities: tuple[str, ...]) -> dict[str, list[tuple[str, str | None]]]:
    """Folded surface → every (community, form) that writes it ("árabe" is both the feminine and the masculine)."""
    forms: set[str | None] = {None, "cap"}
    table = {c: merge(Community(c), markup, language) for c in communities}
    for community in table.values():
        forms.update(f for f, _ in community.forms)
    out: dict[str, list[tuple[str, str | None]]] = {}
    for name, community in table.items():
        for form in sorted(forms, key=lambda f: (f is not None, f or "")):
            text = render(community, form, language)
            if text and (name, form) not in out.setdefault(text.casefold(), []):
                out[text.casefold()].append((name, form))
        for i, first in enumerate(community.names):
            out.setdefault(first.casefold(), []).append((name, f"name:{i}"))
    return out


def _pattern(surfaces: list[str]) -> re.Pattern[str] | None:
    if not surfaces:
        return None
    alternatives = "|".join(re.escape(s) for s in sorted(surfaces, key=len, reverse=True))
    return re.compile(rf"(?<![\w'’])(?:{alternatives})(?![\w'’])", re.IGNORECASE)


def _render(language: str, markup: str, community: str, form: str | None) -> str | None:
    c = merge(Community(community), markup, language)
    if form and form.startswith("name:"):  # the i-th name of a community stands for the i-th of another
        return render(c, NAME_FORM, language, int(form.split(":")[1]))
    return render(c, form, language)


def swap(prompt: str, language: str, markup: str, communities: tuple[str, ...]) -> Swapped:
    """The prompt's counterfactual variants over ``communities`` (see the module docstring)."""
    lang = language[:2]
    surfaces = _surfaces(language, markup, communities)
    pattern = _pattern(list(surfaces))
    found = [(m, *surfaces[m.group(0).casefold()][0]) for m in pattern.finditer(prompt)] if pattern else []
    gender = markup == "GENDER" and lang in GENDER_WORDS
    side_words = _gender_words(prompt, lang) if gender else []
    mentioned = list(dict.fromkeys(c for _, c, _ in found))
    if not mentioned and side_words:
        by_side = _gender_community(language, communities, side_words[0][1])
        mentioned = [by_side] if by_side else []
    if len(mentioned) != 1:
        reason = "mentions no community" if not mentioned else "mentions several communities"
        return Swapped(prompt, None if not mentioned else " / ".join(mentioned),
                       (Variant(mentioned[0] if mentioned else "", prompt, (reason,)),) if mentioned else ())
    source = mentioned[0]
    variants = [Variant(source, prompt)]
    for target in communities:
        if target == source:
            continue
        review: list[str] = []
        edits: list[tuple[int, int, str]] = []
        for m, _, form in found:
            text = _render(language, markup, target, form)
            if text is None:
                review.append(f"{target} has no form '{form}' for {m.group(0)!r}")
                continue
            readings = {_render(language, markup, target, f) for c, f in surfaces[m.group(0).casefold()]
                        if c == source}
            if len(readings - {None}) > 1:  # "árabe": feminine or masculine? the target's forms differ
                review.append(f"{m.group(0)!r} may be {' or '.join(sorted(str(f) for c, f in surfaces[m.group(0).casefold()] if c == source))}: "
                              f"check which form of {target} it needs")
            edits.append((m.start(), m.end(), _case(m.group(0), text)))
        if gender:
            target_side, source_side = _side_of(language, target), _side_of(language, source)
            taken = {(s, e) for s, e, _ in edits}
            words = [(m, side) for m, side in side_words if not any(s <= m.start() < e for s, e in taken)]
            if words and target_side and source_side and target_side != source_side:
                for m, side in words:
                    if side == source_side:
                        edits.append((m.start(), m.end(), _case(m.group(0), _counterpart(lang, m.group(0), side,
                                                                                          prompt[m.end():]))))
                review += _agreement(prompt, lang, edits)
                edits += _determiners(prompt, lang, edits, source_side)
            elif words and target_side != source_side:
                review.append(f"'{target}' has no words to swap {', '.join(repr(m.group(0)) for m, _ in words[:3])} "
                              "to: write this variant by hand")
            elif target_side and source_side and target_side != source_side:
                review += _agreement(prompt, lang, edits)
                edits += _determiners(prompt, lang, edits, source_side)  # Catalan "la Maria" -> "el Jordi"
        text = prompt
        for start, end, new in sorted(set(edits), reverse=True):
            text = text[:start] + new + text[end:]
        variants.append(Variant(target, text, tuple(dict.fromkeys(review))))
    return Swapped(prompt, source, tuple(variants))


def _gender_words(prompt: str, lang: str) -> list[tuple[re.Match[str], str]]:
    male = {m for m, _ in GENDER_WORDS[lang]}
    female = {f for _, f in GENDER_WORDS[lang]}
    out = []
    for m in re.finditer(r"(?<![\w])\w+\.?(?![\w'’])", prompt):
        word = m.group(0).casefold()
        if word not in male | female:
            word = word.rstrip(".")
        if word in male and word not in female:
            out.append((m, "male"))
        elif word in female and word not in male:
            out.append((m, "female"))
        elif word in male and word in female:  # "her" is female either way
            out.append((m, "female" if lang == "en" else "male"))
    return out


def _counterpart(lang: str, word: str, side: str, after: str = "") -> str:
    folded = word.casefold()
    if (lang, folded) in ONE_WAY:
        return ONE_WAY[(lang, folded)]
    if lang == "en" and folded == "her":  # "her book" -> "his book"; "met her." -> "met him."
        following = re.match(r"\s+([^\W\d_]+)", after)
        objects = {"and", "or", "to", "for", "with", "about", "that", "because", "if", "when", "as", "at", "in",
                   "on", "up", "out", "back", "again", "too", "first", "later", "today", "yesterday", "a", "an",
                   "the", "some", "any", "is", "was", "will", "would", "should"}
        return "his" if following and following.group(1).casefold() not in objects else "him"
    for male, female in GENDER_WORDS[lang]:
        if side == "male" and folded == male:
            return female
        if side == "female" and folded == female:
            return male
    return word


def _side_of(language: str, community: str) -> str | None:
    names = list(shipped(language).get("GENDER", {}))
    if community in names[:1]:
        return "male"
    if community in names[1:2]:
        return "female"
    folded = community.casefold()
    if folded in ("men", "man", "male", "males", "hombres", "homes"):
        return "male"
    if folded in ("women", "woman", "female", "females", "mujeres", "dones"):
        return "female"
    return None


def _gender_community(language: str, communities: tuple[str, ...], side: str) -> str | None:
    return next((c for c in communities if _side_of(language, c) == side), None)


def _determiners(prompt: str, lang: str, edits: list[tuple[int, int, str]], source_side: str) -> list[tuple[int, int, str]]:
    """The article or demonstrative right before each swapped noun, swapped to the noun's new gender."""
    pairs = DETERMINERS.get(lang, ())
    out: list[tuple[int, int, str]] = []
    pending = list(edits)
    while pending:  # a determiner swapped may have its own before it: "la meva filla" -> "el meu fill"
        start, _, new = pending.pop()
        before = prompt[:start]
        if lang == "ca" and re.search(r"(?<![\w])l['’]$", before, re.IGNORECASE) is not None:
            # "l'home" -> "la dona": the elided article follows the new noun's first sound
            article = "l'" if re.match(r"[aeiouàèéíòóúh]", new, re.IGNORECASE) else (
                "el " if source_side == "female" else "la ")
            out.append((start - 2, start, _case(before[-2:], article)))
            continue
        m = re.search(r"([^\W\d_]+)(\s+)$", before)
        if not m:
            continue
        det = m.group(1).casefold()
        for male, female in pairs:
            if (source_side == "male" and det == male) or (source_side == "female" and det == female):
                repl = female if source_side == "male" else male
                edit = (m.start(1), m.end(1), _case(m.group(1), repl))
                if edit not in out:
                    out.append(edit)
                    pending.append(edit)
                break
    return out


COPULAS = frozenset(["es", "está", "era", "estaba", "fue", "sea", "parece", "sigue", "queda", "quedó", "se", "siente", "anda", "és", "està", "estava", "va", "sembla", "queda", "segueix"])


def _agreement(prompt: str, lang: str, edits: list[tuple[int, int, str]]) -> list[str]:
    """A word right after a swapped word, or after a copula that follows it ("mi hija está cansada"), that may
    agree with it in Spanish or Catalan: a reason to review the variant rather than send it."""
    pattern = AGREEING.get(lang)
    if pattern is None:
        return []
    out = []
    for _, end, _ in edits:
        following = [w.casefold() for w in _WORD.findall(re.split(r"[.,!?;:\n¿¡]", prompt[end:], maxsplit=1)[0])[:4]]
        candidates = following[:1]
        if following[:1] and following[0] in COPULAS | {"como", "com"}:  # "está cansada", "como programadora"
            rest = [w for w in following[1:] if w not in ("a", "muy", "molt", "más", "més", "un", "una")]
            candidates = rest[:1]
        for word in candidates:
            if pattern.match(word) and word not in NOT_AGREEING:
                out.append(f"'{word}' after a swapped word may need to agree with it")
                break
    return out
