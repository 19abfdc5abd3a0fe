"""Versioned schema of the memory database (ARCHITECTURE.md, "Memory data model"). Each released
version is one migration, applied in order on open and recorded in PRAGMA user_version; a released
migration is never edited, later changes add a new one. Vector tables (sqlite-vec vec0) are created per
embedding space by the store, since their dimension comes from the embedder.

Times are Unix seconds (UTC) as REAL; frame times inside observation_boxes are integer milliseconds so
that "the same frame" is an exact key. Media paths are relative to the store's media folder.
"""

from __future__ import annotations

SCHEMA_VERSION = 13


def _content_fts(fts: str, table: str, column: str) -> str:
    """An FTS5 index over ``table.column`` (external content) and the triggers that keep it in step."""
    return f"""CREATE VIRTUAL TABLE {fts} USING fts5 (
    {column}, content = '{table}', content_rowid = 'id'
);
CREATE TRIGGER {table}_fts_insert AFTER INSERT ON {table} BEGIN
    INSERT INTO {fts} (rowid, {column}) VALUES (new.id, new.{column});
END;
CREATE TRIGGER {table}_fts_delete AFTER DELETE ON {table} BEGIN
    INSERT INTO {fts} ({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column});
END;
CREATE TRIGGER {table}_fts_update AFTER UPDATE OF {column} ON {table} BEGIN
    INSERT INTO {fts} ({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column});
    INSERT INTO {fts} (rowid, {column}) VALUES (new.id, new.{column});
END;
"""


_V1 = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE embedding_spaces (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    dims INTEGER NOT NULL CHECK (dims > 0)
);

CREATE TABLE clips (
    id INTEGER PRIMARY KEY,
    camera TEXT NOT NULL,
    t_start REAL NOT NULL,
    t_end REAL NOT NULL,
    keyframes TEXT NOT NULL DEFAULT '[]',
    media_bytes INTEGER NOT NULL DEFAULT 0,
    ingested_at REAL NOT NULL,
    UNIQUE (camera, t_start),
    CHECK (t_end >= t_start)
);
CREATE INDEX clips_by_time ON clips (t_start);

CREATE TABLE clip_speech (
    id INTEGER PRIMARY KEY,
    clip_id INTEGER NOT NULL REFERENCES clips (id) ON DELETE CASCADE,
    t_start REAL NOT NULL,
    t_end REAL NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX clip_speech_by_clip ON clip_speech (clip_id, t_start);

CREATE TABLE ingest_log (
    id INTEGER PRIMARY KEY,
    camera TEXT NOT NULL,
    clip_t_start REAL NOT NULL,
    clip_t_end REAL NOT NULL,
    clip_id INTEGER REFERENCES clips (id) ON DELETE SET NULL,
    observations INTEGER NOT NULL,
    committed_at REAL NOT NULL,
    UNIQUE (camera, clip_t_start)
);

CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('person', 'animal', 'object')),
    category TEXT NOT NULL,
    name TEXT,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX entities_by_name ON entities (name);

CREATE TABLE observations (
    id INTEGER PRIMARY KEY,
    clip_id INTEGER NOT NULL REFERENCES clips (id) ON DELETE CASCADE,
    entity_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
    track_id INTEGER NOT NULL,
    camera TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('person', 'animal', 'object')),
    category TEXT NOT NULL,
    t_start REAL NOT NULL,
    t_end REAL NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    crop_path TEXT,
    media_bytes INTEGER NOT NULL DEFAULT 0,
    space_id INTEGER NOT NULL REFERENCES embedding_spaces (id),
    UNIQUE (clip_id, track_id)
);
CREATE INDEX observations_by_entity ON observations (entity_id, t_start);
CREATE INDEX observations_by_time ON observations (t_start);

CREATE TABLE observation_boxes (
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    frame_ms INTEGER NOT NULL,
    x1 REAL NOT NULL,
    y1 REAL NOT NULL,
    x2 REAL NOT NULL,
    y2 REAL NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (observation_id, frame_ms)
) WITHOUT ROWID;

CREATE TABLE entity_refs (
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    observation_id INTEGER NOT NULL UNIQUE REFERENCES observations (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    PRIMARY KEY (entity_id, seq)
);

CREATE TABLE association_log (
    id INTEGER PRIMARY KEY,
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL,
    created_entity INTEGER NOT NULL,
    candidates TEXT NOT NULL,
    tau_low REAL NOT NULL,
    tau_high REAL NOT NULL,
    decided_at REAL NOT NULL
);
CREATE INDEX association_log_by_observation ON association_log (observation_id);
CREATE INDEX association_log_by_entity ON association_log (entity_id);

CREATE TABLE entity_constraints (
    entity_a INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    entity_b INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    relation TEXT NOT NULL CHECK (relation = 'not_same'),
    created_at REAL NOT NULL,
    PRIMARY KEY (entity_a, entity_b, relation),
    CHECK (entity_a < entity_b)
);

CREATE TABLE corrections (
    id INTEGER PRIMARY KEY,
    action TEXT NOT NULL,
    details TEXT NOT NULL,
    at REAL NOT NULL
);

CREATE TABLE episodes (
    id INTEGER PRIMARY KEY,
    scale TEXT NOT NULL CHECK (scale IN ('clip', '10min', 'hour', 'day')),
    camera TEXT,
    t_start REAL NOT NULL,
    t_end REAL NOT NULL,
    parent_id INTEGER REFERENCES episodes (id) ON DELETE SET NULL,
    clip_id INTEGER REFERENCES clips (id) ON DELETE CASCADE,
    text TEXT NOT NULL
);
CREATE INDEX episodes_by_time ON episodes (scale, t_start);

CREATE TABLE facts (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    importance REAL NOT NULL CHECK (importance >= 0 AND importance <= 1),
    first_confirmed REAL NOT NULL,
    last_confirmed REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retracted'))
);
CREATE INDEX facts_by_entity ON facts (entity_id);

CREATE TABLE rules (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    predicate TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    cooldown_s REAL NOT NULL DEFAULT 600,
    created_at REAL NOT NULL
);

CREATE TABLE rule_events (
    id INTEGER PRIMARY KEY,
    rule_id INTEGER NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
    entity_id INTEGER REFERENCES entities (id) ON DELETE CASCADE,
    t REAL NOT NULL,
    state TEXT NOT NULL,
    details TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE notifications (
    id INTEGER PRIMARY KEY,
    rule_event_id INTEGER REFERENCES rule_events (id) ON DELETE CASCADE,
    sink TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    payload TEXT NOT NULL,
    created_at REAL NOT NULL,
    sent_at REAL
);

"""
_V1 += (
    _content_fts("observation_fts", "observations", "description")
    + "\n"
    + _content_fts("episode_fts", "episodes", "text")
)

# Version 2: ReflectWorld-MM's trace level, facts that can be revised, and the rules' persisted state.
_V2 = """
CREATE TABLE traces (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    place TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    t_start REAL NOT NULL,
    t_end REAL NOT NULL,
    sightings INTEGER NOT NULL DEFAULT 1,
    first_observation_id INTEGER REFERENCES observations (id) ON DELETE SET NULL,
    last_observation_id INTEGER REFERENCES observations (id) ON DELETE SET NULL,
    x1 REAL NOT NULL,
    y1 REAL NOT NULL,
    x2 REAL NOT NULL,
    y2 REAL NOT NULL,
    CHECK (t_end >= t_start)
);
CREATE INDEX traces_by_entity ON traces (entity_id, t_end);
CREATE INDEX traces_by_time ON traces (t_start);

ALTER TABLE facts ADD COLUMN kind TEXT NOT NULL DEFAULT 'note';
ALTER TABLE facts ADD COLUMN value TEXT NOT NULL DEFAULT '';
ALTER TABLE facts ADD COLUMN confirmations INTEGER NOT NULL DEFAULT 1;
CREATE INDEX facts_by_kind ON facts (entity_id, kind, value);

ALTER TABLE rules ADD COLUMN after_clip INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rules ADD COLUMN removed_at REAL;

CREATE TABLE rule_state (
    rule_id INTEGER NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
    subject INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('idle', 'pending', 'active')),
    since REAL,
    frames INTEGER NOT NULL DEFAULT 0,
    last_true REAL,
    last_fired REAL,
    details TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (rule_id, subject)
) WITHOUT ROWID;
CREATE INDEX rule_events_by_rule ON rule_events (rule_id, t);

ALTER TABLE notifications ADD COLUMN error TEXT;
ALTER TABLE notifications ADD COLUMN next_attempt REAL NOT NULL DEFAULT 0;
CREATE INDEX notifications_due ON notifications (status, next_attempt);
"""

# Version 3 (issue 16): what a description says, as typed fields (edge_agent.memory.description), and the
# places of traces and facts as the zone or region itself ('sink', 'top left'), not a phrase. The fields of
# the observations already stored are read from their template sentences afterwards, in Python
# (edge_agent.memory.legacy), in the same transaction.
_V3 = """
ALTER TABLE observations ADD COLUMN colour TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN colour_second TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN rgb INTEGER CHECK (rgb IS NULL OR (rgb >= 0 AND rgb <= 16777215));
ALTER TABLE observations ADD COLUMN pattern TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN size TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN zone TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN region TEXT NOT NULL DEFAULT '';
ALTER TABLE observations ADD COLUMN motion TEXT NOT NULL DEFAULT '';

CREATE TABLE observation_company (
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    category TEXT NOT NULL,
    n INTEGER NOT NULL CHECK (n > 0),
    PRIMARY KEY (observation_id, category)
) WITHOUT ROWID;
CREATE INDEX observation_company_by_category ON observation_company (category);
"""

# Version 4 (issue 17): GEB's unresolved identity: two entities that may be one instance (similar across their
# references, never seen apart), with the similarity that says so; never merged by this alone.
_V4 = """
CREATE TABLE entity_relations (
    entity_a INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    entity_b INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    relation TEXT NOT NULL CHECK (relation = 'possibly_same'),
    score REAL NOT NULL,
    observation_id INTEGER REFERENCES observations (id) ON DELETE SET NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (entity_a, entity_b, relation),
    CHECK (entity_a < entity_b)
) WITHOUT ROWID;
CREATE INDEX entity_relations_by_b ON entity_relations (entity_b);
"""

# Version 5 (issue 18): places for a camera without zones: groups of what things were seen standing on and in
# front of (a descriptor of their surroundings, the group's mean), named by the user; an observation's place.
_V5 = """
CREATE TABLE places (
    id INTEGER PRIMARY KEY,
    camera TEXT NOT NULL,
    name TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 100),
    vector BLOB NOT NULL,
    sightings INTEGER NOT NULL DEFAULT 1 CHECK (sightings > 0),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX places_by_camera ON places (camera);
ALTER TABLE observations ADD COLUMN place_id INTEGER REFERENCES places (id) ON DELETE SET NULL;
CREATE INDEX observations_by_place ON observations (place_id);
"""

# Version 6 (issue 18): how sure memory is of an observation's place: the likeness (cosine) of its surroundings to
# the place's mean when it was placed there (1 for the observation a new place began with); and the space a place's
# descriptors are in (the model-free descriptor, or an image-text model's), never compared across spaces.
_V6 = """
ALTER TABLE observations ADD COLUMN place_score REAL CHECK (place_score IS NULL OR place_score BETWEEN -1 AND 1);
ALTER TABLE places ADD COLUMN space TEXT NOT NULL DEFAULT 'surroundings';
"""

# Version 7 (issue 20): faces. An observation's best faces (unit vectors in the face model's space, best first), and
# each person's faces to be recognised by: taken from their observations or enrolled from a picture
# (``observation_id`` NULL), bounded and kept diverse by memory.people. Never sent anywhere.
_V7 = """
CREATE TABLE observation_faces (
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL CHECK (rank >= 0),
    space TEXT NOT NULL,
    embedding BLOB NOT NULL,
    PRIMARY KEY (observation_id, rank)
);
CREATE TABLE face_refs (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    observation_id INTEGER REFERENCES observations (id) ON DELETE SET NULL,
    space TEXT NOT NULL,
    embedding BLOB NOT NULL,
    enrolled INTEGER NOT NULL DEFAULT 0 CHECK (enrolled IN (0, 1)),
    created_at REAL NOT NULL
);
CREATE INDEX face_refs_by_entity ON face_refs (entity_id);
CREATE INDEX face_refs_by_space ON face_refs (space);
"""

#: The memory graph's tables: (table, the columns that are graph links, the table's code in graph_changes, key).
_GRAPH_TABLES = (
    ("observations", "entity_id, clip_id, t_start", 0, "id"),
    ("clips", "camera, t_start", 1, "id"),
    ("episodes", "clip_id, parent_id, t_start, camera, scale", 2, "id"),
    ("entity_relations", None, 3, None),
)

# Version 8 (issue 21): a revision counter per derived index, moved by triggers whenever what it is made of changes,
# so an index saved beside the database (the memory graph's arrays) is known current without reading memory; an
# entity's appearances read from an index that covers them.
_V8 = """
CREATE TABLE revisions (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO revisions (name, value) VALUES ('graph', 0);
-- An entity's appearances (how many, first, last, where) are read from the index alone: with the rows, an entity
-- seen fifty thousand times took 9 ms a rendered biography.
DROP INDEX observations_by_entity;
CREATE INDEX observations_by_entity ON observations (entity_id, t_start, t_end, camera);
""" + "".join(
    f"""
CREATE TRIGGER {table}_graph_{event.split()[0].lower()} AFTER {event} ON {table} BEGIN
    UPDATE revisions SET value = value + 1 WHERE name = 'graph';
END;"""
    for table, columns, _, _ in _GRAPH_TABLES
    for event in ("INSERT", "DELETE", f"UPDATE OF {columns}" if columns else "UPDATE")
)

# Version 9 (issue 21): which rows each graph revision changed, so a saved graph is brought up to date by reading
# what changed since it was made (a clip's rows) instead of the whole memory. One row per revision (the table code:
# 0 observations, 1 clips, 2 episodes, 3 entity relations); rows a saved graph no longer needs are deleted by the
# writer that saves one.
_V9 = """
CREATE TABLE graph_changes (
    revision INTEGER PRIMARY KEY,
    tbl INTEGER NOT NULL CHECK (tbl BETWEEN 0 AND 3),
    row_id INTEGER NOT NULL
);
""" + "".join(
    f"""
DROP TRIGGER {table}_graph_{event.split()[0].lower()};
CREATE TRIGGER {table}_graph_{event.split()[0].lower()} AFTER {event} ON {table} BEGIN
    UPDATE revisions SET value = value + 1 WHERE name = 'graph';
    INSERT INTO graph_changes (revision, tbl, row_id)
        SELECT value, {code}, {f"{'OLD' if event == 'DELETE' else 'NEW'}.{key}" if key else 0} FROM revisions
        WHERE name = 'graph';
END;"""
    for table, columns, code, key in _GRAPH_TABLES
    for event in ("INSERT", "DELETE", f"UPDATE OF {columns}" if columns else "UPDATE")
)

# Version 10 (issue 21): what a question is read with, and what it weighs, from indexes instead of scans. An
# entity's described colours join its appearances' index: "is the black cat by the sink?" weighs the share of each
# cat's sightings described black, which at a million observations (5,000 cats, 100,000 sightings) took 0.21 s from
# the rows and 0.02 s from the index alone. The cameras and the kinds memory holds (the words a question is parsed
# with) are found by stepping through an index, one entry each: 26 and 55 ms at a million as scans, 0.04 ms so.
_V10 = """
DROP INDEX observations_by_entity;
CREATE INDEX observations_by_entity ON observations (entity_id, t_start, t_end, camera, colour);
CREATE INDEX clips_by_camera ON clips (camera, t_start);
CREATE INDEX entities_by_category ON entities (lower(category));
"""

# Things the user names from pictures (issue 41): an object entity's enrolled appearance vectors, kept apart from the
# reference FIFO (which holds observations and would evict them) and searched by association beside it.
_V11 = """
CREATE TABLE thing_refs (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    space TEXT NOT NULL,
    embedding BLOB NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX thing_refs_by_space ON thing_refs (space, entity_id);
"""

# Things taken (issue 41, memory.takings): a thing's last sighting on a fixed camera that ended while the camera
# recorded on and a person was within reach, with when and that person's sighting.
_V12 = """
CREATE TABLE takings (
    observation_id INTEGER PRIMARY KEY REFERENCES observations (id) ON DELETE CASCADE,
    t REAL NOT NULL,
    by_observation_id INTEGER REFERENCES observations (id) ON DELETE SET NULL
);
CREATE INDEX takings_by ON takings (by_observation_id);
"""

# Version 13 (issue 38): how long memory's longest observation lasted, kept up by triggers (a bound: a deletion leaves
# it as it was). "What did camera2 see yesterday?" asks for observations overlapping a window (end after its start,
# start before its end); the time index answers only the second, and at a million observations stepped through every
# one that started before the window (0.23 s for a day of a year). An observation that ends after the window's start
# started at most this long before it, so the index is read from there.
_V13 = """
CREATE TABLE extents (
    name TEXT PRIMARY KEY,
    seconds REAL NOT NULL
) WITHOUT ROWID;
INSERT INTO extents (name, seconds) SELECT 'observation', coalesce(max(t_end - t_start), 0) FROM observations;
CREATE TRIGGER observations_extent_insert AFTER INSERT ON observations BEGIN
    UPDATE extents SET seconds = NEW.t_end - NEW.t_start
        WHERE name = 'observation' AND seconds < NEW.t_end - NEW.t_start;
END;
CREATE TRIGGER observations_extent_update AFTER UPDATE OF t_start, t_end ON observations BEGIN
    UPDATE extents SET seconds = NEW.t_end - NEW.t_start
        WHERE name = 'observation' AND seconds < NEW.t_end - NEW.t_start;
END;
"""

MIGRATIONS: dict[int, str] = {
    1: _V1,
    2: _V2,
    3: _V3,
    4: _V4,
    5: _V5,
    6: _V6,
    7: _V7,
    8: _V8,
    9: _V9,
    10: _V10,
    11: _V11,
    12: _V12,
    13: _V13,
}


#: Slots in a chunk of a new space's vec0 tables. sqlite-vec allocates a chunk whole when a kind's newest is full:
#: at its default (1,024) a memory's first clip of a person and a thing opened four 2 MiB chunks of 512-d vectors
#: (8 MiB, written twice: the WAL, then memory.db), more than a small disk holds. At 64 it opens 0.5 MiB. The cost
#: is sqlite-vec's own KNN, which association does not use by default (its references are a matrix in RAM):
#: 17 ms against 12 ms for 20,000 512-d vectors (measured 2026-12-03; 256 slots: 12 ms, still 512 KiB a chunk).
VECTOR_CHUNK = 64


def vector_table_ddl(space_id: int, dims: int) -> str:
    """The two vec0 tables of one embedding space: every observation's embedding (filterable by kind,
    camera and time), and the entities' current reference embeddings that association searches."""
    return f"""
CREATE VIRTUAL TABLE IF NOT EXISTS vec_obs_{space_id} USING vec0 (
    observation_id INTEGER PRIMARY KEY,
    embedding float[{dims}] distance_metric=cosine,
    kind TEXT PARTITION KEY,
    camera TEXT,
    t FLOAT,
    chunk_size={VECTOR_CHUNK}
);
CREATE VIRTUAL TABLE IF NOT EXISTS vec_ref_{space_id} USING vec0 (
    observation_id INTEGER PRIMARY KEY,
    embedding float[{dims}] distance_metric=cosine,
    kind TEXT PARTITION KEY,
    entity_id INTEGER,
    chunk_size={VECTOR_CHUNK}
);
"""
