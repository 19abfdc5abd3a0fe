"""Long-term memory: SQLite + sqlite-vec store of clips, observations and entities (GEB's memory graph),
with conservative identity association at write time, the user's corrections and retention."""

from edge_agent.memory.associate import AssociationConfig, Thresholds
from edge_agent.memory.db import (
    CorruptMemoryError,
    Database,
    DatabaseError,
    MissingDependencyError,
    ReadOnlyMemoryError,
    StorageFullError,
)
from edge_agent.memory.records import (
    AssociationDecision,
    Biography,
    CandidateScore,
    Caption,
    Clip,
    ClipRecord,
    Entity,
    Episode,
    IngestResult,
    InvalidRecordError,
    Observation,
    ObservationRecord,
    PossiblySame,
    Recording,
    Utterance,
)
from edge_agent.memory.store import NotFoundError, Store, default_home

__all__ = [
    "AssociationConfig",
    "AssociationDecision",
    "Biography",
    "CandidateScore",
    "Clip",
    "ClipRecord",
    "CorruptMemoryError",
    "Database",
    "DatabaseError",
    "Entity",
    "Episode",
    "IngestResult",
    "InvalidRecordError",
    "MissingDependencyError",
    "NotFoundError",
    "Observation",
    "ObservationRecord",
    "ReadOnlyMemoryError",
    "Caption",
    "PossiblySame",
    "Recording",
    "Utterance",
    "StorageFullError",
    "Store",
    "Thresholds",
    "default_home",
]
