"""The words people use for what the detector sees: its classes (COCO-80) by name and plural, common synonyms
(sofa -> couch, TV -> tv, mug -> cup) and groups (vehicle -> car, truck, bus, ...; people, child -> person).
Questions and rules name things in these words; memory keeps the detector's class names. Plain data, no
model: the configuration, rules and questions import it cheaply."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "ANIMALS",
    "COCO_CLASSES",
    "COLOURS",
    "COLOUR_NAMES",
    "PATTERNS",
    "categories_in",
    "category_names",
    "category_words",
    "plural",
    "singular",
]

#: The classes the detector (YOLOX, COCO-80) reports, in its output order.
COCO_CLASSES: tuple[str, ...] = (
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
)

#: The classes that are animals (the "animal" entity kind); "animal" itself for detectors that say only that.
ANIMALS = frozenset({"bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "animal"})


_IRREGULAR = {
    "person": "people",
    "mouse": "mice",
    "knife": "knives",
    "sheep": "sheep",
    "skis": "skis",
    "scissors": "scissors",
    "bus": "buses",
    "glass": "glasses",
    "couch": "couches",
    "bench": "benches",
    "sandwich": "sandwiches",
    "toothbrush": "toothbrushes",
    "giraffe": "giraffes",
}

_VEHICLES = ("car", "truck", "bus", "motorcycle", "bicycle", "train", "boat", "airplane")
_PERSON = ("person",)

#: Synonyms and groups: a word -> the detector classes it may mean.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    **{
        w: _PERSON
        for w in (
            "people",
            "man",
            "men",
            "woman",
            "women",
            "child",
            "children",
            "kid",
            "kids",
            "boy",
            "boys",
            "girl",
            "girls",
            "guy",
            "guys",
            "lady",
            "ladies",
            "someone",
            "somebody",
            "anyone",
            "anybody",
            "pedestrian",
            "pedestrians",
            "visitor",
            "visitors",
            "stranger",
            "strangers",
            "human",
            "humans",
            "adult",
            "adults",
            "baby",
            "walker",
            "walkers",
            "passerby",
            "passersby",
            "toddler",
            "toddlers",
            "infant",
            "infants",
            "teen",
            "teens",
            "teenager",
            "teenagers",
            "youngster",
            "son",
            "daughter",
            "mum",
            "mom",
            "mother",
            "dad",
            "father",
            "grandma",
            "grandpa",
            "grandmother",
            "grandfather",
            "grandson",
            "granddaughter",
            "grandchild",
            "grandchildren",
            "grandkid",
            "grandkids",
            "nephew",
            "niece",
            "husband",
            "wife",
            "brother",
            "sister",
            "aunt",
            "uncle",
            "cousin",
            "partner",
            "sons",
            "daughters",
            "neighbour",
            "neighbor",
            "neighbours",
            "neighbors",
            "folk",
            "folks",
            "guest",
            "guests",
            "individual",
            "individuals",
            "persons",
            "crowd",
            "crowds",
            "figure",
            "human being",
            "gentleman",
            "gentlemen",
            "fellow",
            "chap",
            "bloke",
            "dude",
            "cook",
            "cooks",
            "chef",
            "friend",
            "friends",
            "kiddo",
            "tot",
            "newborn",
            "resident",
            "occupant",
            "roommate",
            "flatmate",
        )
    },
    **{w: _VEHICLES for w in ("vehicle", "vehicles")},
    **{w: ("chair", "couch", "bed", "dining table", "bench") for w in ("furniture", "furnishings")},
    **{w: tuple(sorted(ANIMALS)) for w in ("animal", "animals", "pet", "pets")},
    "van": ("truck", "car"),
    "vans": ("truck", "car"),
    "lorry": ("truck",),
    "lorries": ("truck",),
    "pickup": ("truck",),
    "suv": ("car",),
    "automobile": ("car",),
    "motor": ("car",),  # British: "the motor I park on the street"
    "motors": ("car",),
    "auto": ("car",),
    "sedan": ("car",),
    "hatchback": ("car",),
    "jeep": ("car",),
    "hound": ("dog",),
    "pup": ("dog",),
    "doggo": ("dog",),
    "freezer": ("refrigerator",),
    "tele": ("tv",),
    "tablet": ("cell phone", "laptop"),  # COCO has no tablet: detectors call one a phone or a laptop
    "ipad": ("cell phone", "laptop"),
    "tablets": ("cell phone", "laptop"),
    "taxi": ("car",),
    "cab": ("car",),
    "bike": ("bicycle", "motorcycle"),
    "bikes": ("bicycle", "motorcycle"),
    "motorbike": ("motorcycle",),
    "scooter": ("motorcycle",),
    "ship": ("boat",),
    "plane": ("airplane",),
    "aeroplane": ("airplane",),
    "sofa": ("couch",),
    "sofas": ("couch",),
    "settee": ("couch",),
    "tv": ("tv",),
    "tvs": ("tv",),
    "television": ("tv",),
    "telly": ("tv",),
    "monitor": ("tv",),
    "screen": ("tv",),
    "phone": ("cell phone",),
    "phones": ("cell phone",),
    "mobile": ("cell phone",),
    "smartphone": ("cell phone",),
    "cellphone": ("cell phone",),
    "mug": ("cup",),
    "mugs": ("cup",),
    "glass": ("wine glass", "cup"),
    "computer": ("laptop",),
    "notebook": ("laptop",),
    "table": ("dining table",),
    "tables": ("dining table",),
    "desk": ("dining table",),
    "plant": ("potted plant",),
    "plants": ("potted plant",),
    "flower": ("potted plant",),
    "ball": ("sports ball",),
    "bag": ("backpack", "handbag", "suitcase"),
    "bags": ("backpack", "handbag", "suitcase"),
    "purse": ("handbag",),
    "luggage": ("suitcase",),
    "fridge": ("refrigerator",),
    "puppy": ("dog",),
    "kitten": ("cat",),
    "kitty": ("cat",),
    "doggy": ("dog",),
    "remote control": ("remote",),
    "armchair": ("chair",),
    "stool": ("chair",),
    "seat": ("chair", "couch", "bench"),
    "teddy": ("teddy bear",),
}

#: The colour names the template describer gives a crop (edge_agent.perception.describe: the achromatic ones, then
#: each hue range's), in the order it counts them.
COLOUR_NAMES = (
    "black",
    "dark grey",
    "grey",
    "white",
    "red",
    "orange",
    "yellow",
    "green",
    "teal",
    "blue",
    "purple",
    "pink",
)
COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "grey", "gray")
PATTERNS = ("striped", "checked", "plain")


def plural(category: str) -> str:
    if category in _IRREGULAR:
        return _IRREGULAR[category]
    head, _, last = category.rpartition(" ")
    word = (
        _IRREGULAR.get(last)
        or _PLURAL_OF.get(last)  # a man, two men
        or (
            last + "es"
            if last.endswith(("s", "x", "ch", "sh"))
            else last[:-1] + "ies"  # a baby, two babies (but a toy, two toys)
            if last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u", "")
            else last + "s"
        )
    )
    return f"{head} {word}".strip()


_SINGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "knives": "knife",
    "ladies": "lady",
    "babies": "baby",
    "passersby": "passerby",
    "lorries": "lorry",
    "puppies": "puppy",
    "glasses": "glass",
    "things": "thing",
    "objects": "object",
    "animals": "animal",
}


_PLURAL_OF = {one: many for many, one in _SINGULAR.items()}


def singular(word: str) -> str:
    """A plural word of the vocabulary in the singular ("dogs" -> "dog", "people" -> "person", "sofas" -> "sofa");
    any other word as it is."""
    if word in _SINGULAR:
        return _SINGULAR[word]
    head, _, last = word.rpartition(" ")
    if last in _SINGULAR:
        return f"{head} {_SINGULAR[last]}".strip()
    words = _WORDS if "_WORDS" in globals() else {}
    for cut in ("es", "s"):
        stem = word[: -len(cut)]
        if word.endswith(cut) and stem in words and plural(stem) == word:
            return stem
    if word.endswith("s") and word[:-1] in words and not word.endswith("ss"):
        return word[:-1]
    return word


def category_words() -> dict[str, tuple[str, ...]]:
    """Every word or phrase -> the detector classes it may mean (class names, their plurals, synonyms, groups)."""
    words: dict[str, tuple[str, ...]] = {}
    for category in COCO_CLASSES:
        words[category] = (category,)
        words.setdefault(plural(category), (category,))
    for word, meant in _SYNONYMS.items():
        words.setdefault(word, meant)
    return words


_WORDS = category_words()
_LONGEST_FIRST = sorted(_WORDS, key=lambda w: (-len(w.split()), -len(w)))
_PATTERN = re.compile(r"\b(" + "|".join(re.escape(w) for w in _LONGEST_FIRST) + r")\b")


def categories_in(text: str, known: Iterable[str] = ()) -> tuple[tuple[str, ...], list[str]]:
    """(the detector classes the text names, the words that named them), in the order they are named; a
    phrase wins over the words inside it ("cell phone" over "phone", "wine glass" over "glass"). ``known``:
    categories memory holds beyond these words (another detector's classes): each by its name and plural, and
    a word that is one of them means it first ("phone" is the "phone" memory holds, then a "cell phone")."""
    extra = {w: (c,) for c in known for w in (c, plural(c))}
    words = {**_WORDS, **{w: extra[w] + tuple(c for c in _WORDS.get(w, ()) if c not in extra[w]) for w in extra}}
    pattern = (
        _PATTERN
        if not extra
        else re.compile(
            r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w.split()), -len(w)))) + r")\b"
        )
    )
    found: list[str] = []
    said: list[str] = []
    for match in pattern.finditer(text.lower()):
        said.append(match.group(1))
        for category in words[match.group(1)]:
            if category not in found:
                found.append(category)
    return tuple(found), said


def category_names(word: str) -> frozenset[str]:
    """Every category a word of a rule may match: itself, its singular, the classes it means, and the other
    words for those (so a rule about "the sofa" matches a "couch" observation and one about "vans" a truck)."""
    word = word.strip().lower()
    names = {word, *_WORDS.get(word, ())}
    if word not in _WORDS and word.endswith("s") and len(word) > 2 and not word.endswith(("ss", "us")):
        names.add(word[:-1])  # a category memory holds that the vocabulary does not: "keys" -> "key"
        if word.endswith("es"):
            names.add(word[:-2])
    names |= {c for w in list(names) for c in _WORDS.get(w, ())}
    names |= {w for w, meant in _WORDS.items() if names.intersection(meant) and w != "people"}
    return frozenset(names)
