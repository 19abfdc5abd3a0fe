"""What people say to their camera memory, read (ReflectWorld-MM's QA agent and user rules, GEB's typed read path):
one grammar for questions and rules (``grammar``), memory's words and English's closed classes (``lexicon``), times
(``times``) and the reader that fills the grammar from a sentence (``reader``)."""

from edge_agent.language.grammar import Intent, Place, Query, RuleReading, Side, Subject, Time, Trigger
from edge_agent.language.lexicon import Lexicon
from edge_agent.language.reader import Reader, Unreadable

__all__ = [
    "Intent",
    "Lexicon",
    "Place",
    "Query",
    "Reader",
    "RuleReading",
    "Side",
    "Subject",
    "Time",
    "Trigger",
    "Unreadable",
]
