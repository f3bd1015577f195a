"""Measure names for ``evaluate`` (lesson 09): ir_measures' spelling, trec_eval's names, comma lists, gain maps.

A measure is written the ir_measures way, ``Name(param=value,...)@k``:
``nDCG@10``, ``nDCG(gain=exp)@10``, ``nDCG(gains={1:1,2:3,3:7})@10``,
``RR(rel=2)@10``, ``AP``, ``P@5``, ``R@100``, ``Hit@3``, ``CG@5``, ``Rprec``,
``bpref``, ``Judged@10``, ``num_rel``, ``num_rel_ret``, ``num_ret``, and past
trec_eval ``RBP(p=0.8)``, ``RBP_resid`` and ``ERR@20``; the rest of trec_eval's
family is ``GMAP``, ``IPrec(recall=0.5)``, ``11pt_avg(levels={0.2,0.5,0.8})``,
``Rprec_mult(times=2)``, ``set_P``, ``set_recall``, ``set_map``,
``set_F(recall_weight=0.5)``, ``set_relative_P``, ``relative_P@10``,
``utility(weights={2,-1,0})``, ``relstring@20``, ``binG``, ``infAP``, ``gm_bpref``, ``unj@10``,
``num_nonrel_judged_ret``, ``ndcg_rel``, ``Rndcg``, ``G``, and ``rbp`` and ``rbp_resid`` (in lower case only:
trec_eval's graded RBP, p = 0.9). Every name becomes one
canonical spelling, ``str(measure)``. Each measure is declared once in
:mod:`helpers.batch.registry`; the tables here are made from the declarations.

trec_eval's names work too (``ndcg_cut_10``, ``map``, ``recip_rank``, ``P_5``,
``recall_100``, ``success_1``, ``map_cut_10``), and so do its parameter lists:
``P.5,10`` is P@5 and P@10, ``ndcg_cut.10,20`` nDCG@10 and nDCG@20, and
``ndcg.1=3,2=9,4=4.5`` is nDCG with that gain map (trec_eval's ``-m ndcg.REL=GAIN,...``:
each listed grade gets its gain, every other grade keeps its own value as its
gain). A cutoff in such a list is read as trec_eval reads it, its integer part
(``23.4`` is 23).

A trec_eval name means what trec_eval computes. Its measures without
parameters (``map``, ``recip_rank``, ``Rprec``, ``bpref``, ``num_rel``,
``num_rel_ret``, ``num_ret``) ignore whatever follows the dot, so
``recip_rank.2`` is the full-list RR and ``map.5`` is map (AP over the whole
list), with a :class:`TrecNameWarning` that suggests the collection's spelling
(``RR@2?``). A name trec_eval refuses is refused: ``ndcg.5`` (ndcg's
parameters are grade=gain pairs), and a dot or underscore cutoff after a name
that is not trec_eval's (``MRR.10``, ``Hit_3``): write ``RR@10``, ``Hit@3``.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from typing import cast

from helpers._checks import close_names
from helpers.batch.registry import DECLARATIONS, PARAMETERS, declaration_of, spellings

# The tables below are made from the declarations of helpers.batch.registry: declare a measure there, once.
# name: (kind, cutoff, parameters). kind: "graded" (gains), "binary" (relevant at grade >= rel),
# "count" (a number of documents), "judged" (judgments, not grades). cutoff: "required",
# "optional" or "none".
MEASURES = {d.name: (d.kind, d.cutoff, d.parameters) for d in DECLARATIONS.values()}
COUNTS = tuple(d.name for d in DECLARATIONS.values() if d.summed)  # trec_eval sums these instead of averaging
ALIASES = spellings()  # every lower-case spelling -> its measure
EXACT_NAMES = {d.name: d.name for d in DECLARATIONS.values() if d.exact_case}  # read only as written: rbp
# trec_eval's names that take a list of cutoffs after a dot ("P.5,10"), and the measure they give
TREC_CUTOFF_LISTS = {d.trec_cut_name.lower(): d.name for d in DECLARATIONS.values() if d.trec_cut_name}
# trec_eval's names whose parameters after a dot are a gain map ("ndcg.1=3,2=9")
TREC_GAIN_MAPS = {d.trec_name.lower(): d.name for d in DECLARATIONS.values() if d.trec_name and "gains" in d.parameters}
# trec_eval's measures that take no parameter: it ignores anything after the dot ("recip_rank.2" is
# recip_rank), so the parser does too, and warns; the value is the spelling a learner probably meant
TREC_IGNORES_PARAMETERS = {
    d.trec_name.lower(): (None if d.cutoff == "none" else d.name + "@{k}")
    for d in DECLARATIONS.values()
    if d.trec_name and "gains" not in d.parameters and not d.trec_list and not d.trec_whole
}
# trec_eval's names whose whole list after a dot is one parameter ("utility.2,-1,0,0": weights)
TREC_WHOLE_LISTS = {d.trec_name.lower(): (d.name, d.trec_whole) for d in DECLARATIONS.values()
                    if d.trec_name and d.trec_whole}
# trec_eval's names whose list after a dot gives a parameter ("iprec_at_recall.0,.5": recall levels)
TREC_PARAMETER_LISTS = {d.trec_name.lower(): (d.name, d.trec_list) for d in DECLARATIONS.values()
                        if d.trec_name and d.trec_list}
# trec_eval's name of each measure the command computes, by (name, has a cutoff), and its default cutoffs
TREC_NAMES = {
    **{(d.name, False): d.trec_name for d in DECLARATIONS.values() if d.trec_name},
    **{(d.name, True): d.trec_cut_name for d in DECLARATIONS.values() if d.trec_cut_name},
}
DEFAULT_CUTOFFS = {d.trec_cut_name or d.trec_name: d.trec_default_cutoffs
                   for d in DECLARATIONS.values() if d.trec_default_cutoffs}
GAIN_NAMES = {"linear": "linear", "lin": "linear", "exp": "exp", "exponential": "exp"}

_MEASURE_PATTERN = re.compile(
    r"""^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_]*?)\s*
        (?:\((?P<before>[^()]*)\))?\s*
        (?:@\s*(?P<cutoff>[^\s()@]+)|[._](?P<trec_cutoff>\d+))?\s*
        (?:\((?P<after>[^()]*)\))?\s*$""",
    re.VERBOSE,
)
_TREC_LIST = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_]*?)\.(?P<params>\S*[,=.]\S*)\s*$")
_TREC_CUTOFF = re.compile(r"^\d+(\.\d*)?$")  # what trec_eval's atol reads whole: 23.4 is 23


class TrecNameWarning(UserWarning):
    """A trec_eval name with a parameter trec_eval ignores, such as ``recip_rank.2`` (lesson 09)."""


@dataclass(frozen=True)
class Measure:
    """One measure with its settings; ``str(measure)`` is its canonical name (lesson 09).

    ``name`` is a measure declared in :mod:`helpers.batch.registry`;
    ``cutoff`` the k of @k or None (whole list); ``rel`` the lowest relevant
    grade (binary measures and the counts of relevant documents); ``gain``
    "linear" or "exp" (nDCG and CG); ``gains`` a gain map, ((grade, gain),
    ...) sorted by grade, or None; ``p`` RBP's persistence.

    >>> str(Measure("RR", cutoff=10, rel=2))
    'RR(rel=2)@10'
    >>> str(Measure("nDCG", cutoff=10, gains=((1, 3.0), (2, 9.0))))
    'nDCG(gains={1:3,2:9})@10'
    """

    name: str
    cutoff: int | None = None
    rel: float = PARAMETERS["rel"].default  # type: ignore[assignment]
    gain: str = PARAMETERS["gain"].default  # type: ignore[assignment]
    gains: tuple[tuple[int, float], ...] | None = None
    p: float = PARAMETERS["p"].default  # type: ignore[assignment]
    recall: float | None = None
    times: float | None = None
    recall_weight: float = PARAMETERS["recall_weight"].default  # type: ignore[assignment]
    weights: tuple[float, ...] = PARAMETERS["weights"].default  # type: ignore[assignment]
    levels: tuple[float, ...] = PARAMETERS["levels"].default  # type: ignore[assignment]

    def __str__(self) -> str:
        params = []
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        if self.gains is not None:
            params.append("gains={" + ",".join(f"{level}:{value:g}" for level, value in self.gains) + "}")
        if self.p != PARAMETERS["p"].default:
            params.append(f"p={self.p:g}")
        params += [f"{name}={value:g}" for name, value in (("recall", self.recall), ("times", self.times))
                   if value is not None]
        if self.recall_weight != PARAMETERS["recall_weight"].default:
            params.append(f"recall_weight={self.recall_weight:g}")
        for name in ("weights", "levels"):
            if getattr(self, name) != PARAMETERS[name].default:
                listed = ",".join(f"{value:g}" for value in getattr(self, name))
                params.append(f"{name}={{{listed}}}")
        if self.rel != 1:
            params.append(f"rel={self.rel:g}")
        text = self.name + (f"({','.join(params)})" if params else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    @property
    def kind(self) -> str:
        """"graded", "binary", "count" or "judged" (see ``helpers.batch.registry.KINDS``)."""
        return declaration_of(self.name).kind


def supported_measures() -> str:
    """A one-line summary of the measure names and parameters ``evaluate`` understands (lesson 09)."""
    cutoffs = {"required": "@k", "optional": "[@k]", "none": ""}
    names = [d.name + cutoffs[d.cutoff] + (f"({','.join(d.parameters)})" if d.parameters else "")
             for d in DECLARATIONS.values()]
    parameters = [f"{p.name}: {p.meaning}" + (f" (default {p.default})" if p.default is not None else "")
                  for p in PARAMETERS.values()]
    return (
        f"{', '.join(names)}; parameters {'; '.join(parameters)}; write parameters as 'RR(rel=2)@10' or "
        "'RR@10(rel=2)'; trec_eval names such as 'ndcg_cut_10', 'map', 'recip_rank', 'P_5', "
        "'recall_100', 'success_1', 'map_cut_10', lists such as 'P.5,10' and gain maps such as "
        "'ndcg.1=3,2=9' work too"
    )


def unknown_name(typed: str) -> str:
    """'; did you mean 'RBP'?' for a misspelt measure name ('' when no declared spelling is close)."""
    shown = {spelling.lower(): spelling for d in DECLARATIONS.values()
             for spelling in (d.name, *d.aliases, d.trec_name, d.trec_cut_name) if spelling}
    close = list(dict.fromkeys(shown[name] for name in close_names(typed.lower(), shown)))
    return f"; did you mean {' or '.join(repr(name) for name in close)}?" if close else ""


def parse_measure(text) -> Measure:
    """Turn one measure name such as ``"nDCG(gain=exp)@10"`` into a :class:`Measure` (lesson 09).

    Grammar: ``Name``, then optional ``(param=value,...)``, then optional ``@k``;
    the parameters may also come after the cutoff (``nDCG@10(gain=exp)``).
    Names are case-insensitive and a few synonyms are accepted (MRR, MAP,
    Success, Recall, Precision), as are trec_eval names (``ndcg_cut_10``,
    ``ndcg_cut.10``, ``P_5``, ``recall_100``, ``map``, ``map_cut_10``,
    ``recip_rank``, ``success_1``, ``Rprec``, ``bpref``) and its gain maps
    (``ndcg.1=3,2=9``). A list such as ``P.5,10`` names several measures: use
    :func:`parse_measures`. Unknown names raise ``ValueError`` listing what is
    supported.

    >>> parse_measure("ndcg_cut_10") == Measure("nDCG", cutoff=10)
    True
    >>> str(parse_measure("RR@10(rel=2)"))
    'RR(rel=2)@10'
    >>> str(parse_measure("ndcg.1=3,2=9,4=4.5"))
    'nDCG(gains={1:3,2:9,4:4.5})'
    """
    measures = expand_measure(text)
    if len(measures) != 1:
        raise ValueError(f"{text!r} names {len(measures)} measures ({', '.join(map(str, measures))}): "
                         "give a list, or use parse_measures")
    return measures[0]


def parse_measures(measures) -> list[Measure]:
    """Parse one name or a list of names (trec_eval lists expanded); repeated measures are kept once (lesson 09).

    >>> [str(m) for m in parse_measures(["nDCG@10", "ndcg_cut_10", "AP", "P.5,10"])]
    ['nDCG@10', 'AP', 'P@5', 'P@10']
    """
    if isinstance(measures, str | Measure):
        measures = [measures]
    if not isinstance(measures, list | tuple):
        raise TypeError(f"measures must be a name or a list of names, got {type(measures).__name__}")
    if not measures:
        raise ValueError(f"give at least one measure; supported: {supported_measures()}")
    parsed: list[Measure] = []
    for text in measures:
        parsed += [measure for measure in expand_measure(text) if measure not in parsed]
    return parsed


def expand_measure(text) -> list[Measure]:
    """The measures one name stands for: one, or several for a trec_eval list (``P.5,10``) (lesson 09)."""
    if isinstance(text, Measure):
        return [text]
    if not isinstance(text, str):
        raise TypeError(f"a measure is a name such as 'nDCG@10', got {type(text).__name__} {text!r}")
    listed = _TREC_LIST.match(text)
    if listed is not None:
        return _trec_list(listed["name"], listed["params"], text)
    match = _MEASURE_PATTERN.match(text)
    if match is None or (match["before"] is not None and match["after"] is not None):
        raise ValueError(f"cannot read the measure {text!r}; supported: {supported_measures()}")
    name = EXACT_NAMES.get(match["name"]) or ALIASES.get(match["name"].lower())
    if name is None:
        raise ValueError(f"unknown measure {match['name']!r} in {text!r}{unknown_name(match['name'])}; "
                         f"supported: {supported_measures()}")
    if match["trec_cutoff"] is not None and match["name"].lower() in TREC_WHOLE_LISTS and "." in text:
        return _trec_list(match["name"], match["trec_cutoff"], text)  # set_F.2: one number, read as trec_eval does
    if match["trec_cutoff"] is not None and _trec_parameter_ignored(match["name"], match["trec_cutoff"], text):
        return [_checked(Measure(name, **_parse_params(match["before"] or match["after"] or "", name, text)), text)]
    cutoff = _parse_cutoff(match["cutoff"] or match["trec_cutoff"], text)
    params = _parse_params(match["before"] or match["after"] or "", name, text)
    return [_checked(Measure(name, cutoff, **{**dict(declaration_of(name).defaults), **params}), text)]


def _trec_parameter_ignored(family: str, parameter: str, text: str) -> bool:
    """Whether trec_eval ignores the ``.N`` (or ``_N``) after ``family``; warns if so, refuses what it refuses."""
    family = family.lower()
    if family in TREC_CUTOFF_LISTS:
        return False
    if family in TREC_IGNORES_PARAMETERS:
        spelling = TREC_IGNORES_PARAMETERS[family]
        suggestion = f" Did you mean {spelling.format(k=parameter)}?" if spelling and parameter.isdigit() else ""
        warnings.warn(
            f"{text!r}: trec_eval ignores the parameter {parameter!r} of {family} and computes {family} "
            f"over the whole list, so this is {ALIASES[family]}.{suggestion}",
            TrecNameWarning, stacklevel=4,
        )
        return True
    if family in TREC_GAIN_MAPS:
        cutoff = (f"; for a cutoff write 'nDCG@{parameter}' or 'ndcg_cut.{parameter}'" if family == "ndcg" else
                  f"; {family} takes no cutoff")
        raise ValueError(f"{text!r}: trec_eval refuses this name: {family}'s parameters are grade=gain pairs "
                         f"such as '{family}.1=3,2=9'{cutoff}")
    raise ValueError(f"{text!r}: a cutoff after '.' or '_' is trec_eval's spelling, and {family!r} is not a "
                     f"trec_eval measure; write '{ALIASES[family]}@{parameter}'")


def _checked(measure: Measure, text: str) -> Measure:
    cutoff_rule = MEASURES[measure.name][1]
    if cutoff_rule == "required" and measure.cutoff is None:
        raise ValueError(f"{measure.name} needs a cutoff: write e.g. '{measure.name}@10' (got {text!r})")
    if cutoff_rule == "none" and measure.cutoff is not None:
        raise ValueError(f"{measure.name} takes no cutoff (got {text!r})")
    if measure.gains is not None and measure.gain != "linear":
        raise ValueError(f"{text!r}: give either gain=exp or a gain map (gains=...), not both")
    needed = [name for name in MEASURES[measure.name][2]
              if PARAMETERS[name].default is None and name != "gains" and getattr(measure, name) is None]
    if needed:
        raise ValueError(f"{measure.name} needs {needed[0]}=...: {PARAMETERS[needed[0]].meaning} (got {text!r})")
    return measure


def _trec_list(name: str, params: str, text: str) -> list[Measure]:
    """trec_eval's ``name.param,param``: cutoffs (``P.5,10``) or, for ``ndcg``, a gain map (``ndcg.1=3``)."""
    family = name.lower()
    if family in TREC_GAIN_MAPS:
        return [Measure(TREC_GAIN_MAPS[family], gains=_gain_map(params.split(","), "=", text))]
    if family in TREC_PARAMETER_LISTS:
        return _trec_parameter_list(family, params, text)
    if family in TREC_WHOLE_LISTS:
        name, parameter = TREC_WHOLE_LISTS[family]
        value = params.removeprefix(f"{parameter}=")  # rbp.p=0.95: trec_eval names the parameter
        if "=" in value:
            raise ValueError(f"{text!r}: {family} reads only {parameter}=... here; its gain map is not read")
        return [Measure(name, **{parameter: _READERS[PARAMETERS[parameter].type](value, text)})]  # type: ignore[arg-type]
    if family in TREC_IGNORES_PARAMETERS and _trec_parameter_ignored(family, params, text):
        return [Measure(ALIASES[family])]
    if family not in TREC_CUTOFF_LISTS:
        raise ValueError(f"{text!r}: trec_eval's lists after a '.' are supported for "
                         f"{', '.join([*TREC_GAIN_MAPS, *TREC_CUTOFF_LISTS])}, not {name!r}"
                         f"{unknown_name(name)}")
    cutoffs = []
    for item in params.split(","):
        if not _TREC_CUTOFF.match(item) or int(float(item)) < 1:
            raise ValueError(f"{text!r}: each cutoff must be a whole number >= 1, got {item!r}")
        cutoffs.append(int(float(item)))
    if len(set(cutoffs)) != len(cutoffs):
        raise ValueError(f"{text!r}: a cutoff is listed twice")
    return [Measure(TREC_CUTOFF_LISTS[family], cutoff) for cutoff in sorted(cutoffs)]


def _trec_parameter_list(family: str, params: str, text: str) -> list[Measure]:
    """trec_eval's ``iprec_at_recall.0,.5`` or ``Rprec_mult.0.2,2``: one measure per value, in increasing order."""
    name, parameter = TREC_PARAMETER_LISTS[family]
    values = [cast(float, _READERS[PARAMETERS[parameter].type](item, text)) for item in params.split(",")]
    if len(set(values)) != len(values):
        raise ValueError(f"{text!r}: a value is listed twice")
    return [Measure(name, **{parameter: value}) for value in sorted(values)]  # type: ignore[arg-type]


def _parse_cutoff(text: str | None, whole: str) -> int | None:
    if text is None:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"the cutoff in {whole!r} must be a whole number >= 1, got {text!r}")
    return int(text)


def _split_params(text: str) -> list[str]:
    """Split ``a=1,gains={1:2,3:4}`` at the commas outside braces."""
    items, depth, current = [], 0, ""
    for char in text:
        depth += (char == "{") - (char == "}")
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    return [item.strip() for item in [*items, current] if item.strip()]


def _parse_params(text: str, name: str, whole: str) -> dict:
    params: dict = {}
    for item in _split_params(text):
        key, sep, value = (piece.strip() for piece in item.partition("="))
        value = value.strip("'\"")
        if not sep or key not in MEASURES[name][2]:
            allowed = ", ".join(f"{p}=..." for p in MEASURES[name][2]) or "no parameters"
            takes_rel = ", ".join(other for other, (_, _, allowed) in MEASURES.items() if "rel" in allowed)
            hint = f" (nDCG uses graded gains; rel applies to {takes_rel})" if key == "rel" else ""
            raise ValueError(f"{whole!r}: {name} takes {'only ' if MEASURES[name][2] else ''}{allowed}, "
                             f"got {item!r}{hint}")
        params[key] = _READERS[PARAMETERS[key].type](value, whole)
    return params


def _parse_gain_map(value: str, whole: str) -> tuple[tuple[int, float], ...]:
    if not (value.startswith("{") and value.endswith("}")):
        raise ValueError(f"{whole!r}: write a gain map as gains={{1:1,2:3,3:7}}, got {value!r}")
    return _gain_map(_split_params(value[1:-1]), ":", whole)


def _parse_gain(value: str, whole: str) -> str:
    if value.lower() not in GAIN_NAMES:
        raise ValueError(f"{whole!r}: gain must be 'linear' or 'exp', got {value!r}")
    return GAIN_NAMES[value.lower()]


def _gain_map(pairs: list[str], separator: str, whole: str) -> tuple[tuple[int, float], ...]:
    """grade -> gain pairs such as ``1:3`` (ir_measures) or ``1=3`` (trec_eval), sorted by grade.

    A grade is a whole number >= 0: trec_eval would give a negative "grade" to
    documents outside the qrels (-1) or judged with a negative grade (-2),
    which is not what anyone means.
    """
    gains: dict[int, float] = {}
    for pair in pairs:
        level_text, sep, gain_text = (piece.strip() for piece in pair.partition(separator))
        if not sep or not re.fullmatch(r"[+-]?\d+", level_text):
            raise ValueError(f"{whole!r}: a gain map lists grade{separator}gain pairs such as "
                             f"'1{separator}3', got {pair!r}")
        level = int(level_text)
        if level < 0:
            raise ValueError(f"{whole!r}: gains are given for grades 0 and above, got {level}")
        try:
            gain = float(gain_text)
        except ValueError:
            raise ValueError(f"{whole!r}: the gain of grade {level} must be a number, got {gain_text!r}") from None
        if not math.isfinite(gain):
            raise ValueError(f"{whole!r}: the gain of grade {level} must be finite, got {gain_text!r}")
        if level in gains:
            raise ValueError(f"{whole!r}: grade {level} is given two gains")
        gains[level] = gain
    if not gains:
        raise ValueError(f"{whole!r}: the gain map is empty")
    return tuple(sorted(gains.items()))


def _parse_rel(value: str, whole: str) -> float:
    try:
        rel = float(value)
    except ValueError:
        raise ValueError(f"{whole!r}: rel must be the lowest relevant grade, got {value!r}") from None
    if not rel > 0 or not math.isfinite(rel):
        raise ValueError(f"{whole!r}: rel must be above 0 (grade 0 means not relevant), got {value!r}")
    return int(rel) if rel.is_integer() else rel


def _parse_probability(value: str, whole: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise ValueError(f"{whole!r}: p must be a probability such as 0.8, got {value!r}") from None
    if not 0 < p < 1:
        raise ValueError(f"{whole!r}: p must be above 0 and below 1 (the chance of going on), got {value!r}")
    return p


def _parse_number(value: str, whole: str, what: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{whole!r}: {what} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{whole!r}: {what} must be finite, got {value!r}")
    return number


def _parse_fraction(value: str, whole: str) -> float:
    level = _parse_number(value, whole, "a recall level")
    if not 0 <= level <= 1:
        raise ValueError(f"{whole!r}: a recall level is from 0 to 1, got {value!r}")
    return level


def _parse_multiple(value: str, whole: str) -> float:
    times = _parse_number(value, whole, "a multiple of R")
    if not times > 0:
        raise ValueError(f"{whole!r}: a multiple of R must be above 0, got {value!r}")
    return times


def _numbers(value: str, whole: str, what: str) -> list[float]:
    """The numbers of a list written {a,b,c} (ir_measures' style here) or a,b,c (trec_eval's)."""
    inner = value[1:-1] if value.startswith("{") and value.endswith("}") else value
    if not inner.strip():
        raise ValueError(f"{whole!r}: {what} are a list of numbers such as {{2,-1,0}}, got {value!r}")
    return [_parse_number(item.strip(), whole, what) for item in inner.split(",")]


def _parse_weights(value: str, whole: str) -> tuple[float, ...]:
    weights = _numbers(value, whole, "utility's weights")
    if len(weights) == 3:
        weights.append(0.0)
    if len(weights) != 4:
        raise ValueError(f"{whole!r}: utility takes 3 or 4 weights (relevant returned, other returned, relevant "
                         f"missed, other missed), got {len(weights)}")
    if weights[3] != 0:
        raise ValueError(f"{whole!r}: the weight of other documents missed needs the collection's size (trec_eval's "
                         "-N), which is not offered: give it as 0")
    return tuple(weights)


def _parse_levels(value: str, whole: str) -> tuple[float, ...]:
    levels = _numbers(value, whole, "recall levels")
    for level in levels:
        _parse_fraction(str(level), whole)
    return tuple(levels)


# how a parameter's value is read, by its type (helpers.batch.registry.PARAMETERS)
_READERS = {"grade": _parse_rel, "gain": _parse_gain, "gain map": _parse_gain_map, "probability": _parse_probability,
            "fraction": _parse_fraction, "multiple": _parse_multiple, "weights": _parse_weights,
            "levels": _parse_levels}
