"""What people say to their camera memory, read (ReflectWorld-MM's QA agent and user rules, GEB's typed read path):
one grammar for questions and rules (``grammar``), memory's words and English's closed classes (``lexicon``), times
(``times``), the reader that fills the grammar from a question (``reader``) and from a rule (``rules``). Import the
module you need: the package itself imports nothing (a question's process loads only what it reads with)."""
