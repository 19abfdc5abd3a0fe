"""Procedural memory (ReflectWorld-MM): user rules parsed into structured predicates, checked against
what memory receives by a deterministic resolver, and alerts delivered to sinks."""
