"""Retrieval through identity: PPR against a dense reference, the identity-link question (found with
identity edges, missed without), as-of, the per-entity cap, same-name notes, forget."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation, unit

from edge_agent import native
from edge_agent.memory import Store, corrections
from edge_agent.retrieval import RelationWeights, RetrievalConfig, Retriever, render
from edge_agent.retrieval.ppr import local_push, personalized_pagerank, transition_matrix


def dense_ppr(n, rows, cols, weights, seeds, restart):
    a = np.zeros((n, n))
    for r, c, w in zip(rows, cols, weights):
        a[r, c] += w
        a[c, r] += w
    degree = a.sum(axis=0)
    for i in np.flatnonzero(degree == 0):
        a[i, i], degree[i] = 1.0, 1.0
    t = a / degree
    s = seeds / seeds.sum()
    p = s.copy()
    for _ in range(500):
        p = restart * s + (1 - restart) * t @ p
    return p


def random_graph(seed, n, m, n_seeds):
    """A random weighted graph of ``n`` nodes and ``m`` edges, and dense seed weights on ``n_seeds`` of its nodes."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.uniform(0.1, 1.0, m)
    seeds = np.zeros(n)
    seeds[rng.integers(0, n, n_seeds)] = rng.uniform(0.5, 1.0, n_seeds)
    return rows, cols, weights, seeds


@pytest.mark.parametrize("seed", range(5))
def test_ppr_matches_dense_power_iteration(seed):
    n = 40
    rows, cols, weights, seeds = random_graph(seed, n, 70, 3)
    got = personalized_pagerank(transition_matrix(n, rows, cols, weights), seeds, restart=0.25, tol=1e-12, max_iter=500)
    np.testing.assert_allclose(got, dense_ppr(n, rows, cols, weights, seeds, 0.25), atol=1e-9)
    assert got.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_local_push_reaches_the_same_fixed_point(seed):
    """Local push against the dense reference: every estimate within its error bound, and closer as epsilon
    shrinks; with isolated nodes (they keep their mass) and several seeds."""
    n = 60
    rows, cols, weights, seeds = random_graph(seed, n, 90, 4)
    seeds[np.flatnonzero(transition_matrix(n, rows, cols, weights).diagonal() == 1)[:1]] = 0.7  # an isolated seed
    exact = dense_ppr(n, rows, cols, weights, seeds, 0.25)
    passes = transition_matrix(n, rows, cols, weights).T.tocsr()
    errors = []
    for epsilon in (1e-3, 1e-5, 1e-8):
        nodes, values = local_push(passes, seeds, restart=0.25, epsilon=epsilon)
        got = np.zeros(n)
        got[nodes] = values
        degree = np.diff(passes.indptr).clip(min=1)
        assert np.all(got <= exact + 1e-12)  # push only ever places mass the exact answer has
        assert np.all(exact - got <= epsilon * degree.max() * n + 1e-12)
        errors.append(np.abs(exact - got).sum())
    assert errors[0] >= errors[1] >= errors[2] and errors[2] < 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_the_native_row_stochastic_matrix_is_scipys_normalised_adjacency(seed):
    """Repeated edges, self-loops, edges of weight 0 and nodes without edges (they keep their mass)."""
    rng = np.random.default_rng(seed)
    n = 50
    rows, cols, weights, _ = random_graph(seed, n, 80, 1)
    rows, cols = np.r_[rows, rows[:5], 7], np.r_[cols, cols[:5], 7]
    weights = np.r_[weights, rng.uniform(0.1, 1, 5), 0.5]
    weights[rng.integers(0, len(weights), 4)] = 0.0
    want = transition_matrix(n, rows[weights > 0], cols[weights > 0], weights[weights > 0]).T.tocsr()
    want.sort_indices()
    indptr, indices, data, degree = native.row_stochastic(n, rows, cols, weights)
    np.testing.assert_array_equal(indptr, want.indptr)
    np.testing.assert_array_equal(indices, want.indices)
    np.testing.assert_allclose(data, want.data, rtol=1e-6)
    assert data.dtype == np.float32 and indices.dtype == np.int32
    with pytest.raises(ValueError, match="edge ends"):
        native.row_stochastic(n, [0], [n], [1.0])
    with pytest.raises(ValueError, match="finite"):
        native.row_stochastic(n, [0], [1], [np.nan])
    with pytest.raises(ValueError, match="matching"):
        native.row_stochastic(n, [0, 1], [1], [1.0])
    sums = np.zeros(n)
    np.add.at(sums, rows[weights > 0], weights[weights > 0])
    np.add.at(sums, cols[weights > 0], weights[weights > 0])
    np.testing.assert_allclose(degree, sums)


@pytest.mark.parametrize("seed", range(6))
def test_a_grown_graph_made_from_the_earlier_one_is_the_graph_remade(seed):
    """Nodes added at the end of each of three blocks and edges added among old and new nodes (repeated ones, ones
    touching a node that had none, ones of weight 0): the arrays made from the earlier ones equal those made from every
    edge."""
    rng = np.random.default_rng(seed)
    old_sizes = rng.integers(0, 30, 3)
    added = rng.integers(0, 6, 3)
    new_sizes = old_sizes + added
    old_starts, new_starts = np.r_[0, np.cumsum(old_sizes)], np.r_[0, np.cumsum(new_sizes)]
    n_old, n_new = int(old_starts[-1]), int(new_starts[-1])

    def renumber(nodes):
        block = np.searchsorted(old_starts, nodes, side="right") - 1
        return nodes - old_starts[block] + new_starts[block]

    m = int(rng.integers(0, 3 * max(1, n_old)))
    a, b = rng.integers(0, max(1, n_old), m), rng.integers(0, max(1, n_old), m)
    w = rng.uniform(0.1, 2.0, m)
    if n_old == 0:
        a, b, w = a[:0], b[:0], w[:0]
    earlier = native.row_stochastic(n_old, a, b, w)
    k = int(rng.integers(0, 20))
    a2, b2 = rng.integers(0, max(1, n_new), k), rng.integers(0, max(1, n_new), k)
    w2 = rng.uniform(0.1, 2.0, k)
    w2[: k // 5] = 0.0
    if n_new == 0:
        a2, b2, w2 = a2[:0], b2[:0], w2[:0]
    patch = native.row_stochastic_patch(earlier, old_starts, new_starts, a2, b2, w2)
    grown = native.row_stochastic_flatten(earlier, patch)
    remade = native.row_stochastic(n_new, np.r_[renumber(a), a2], np.r_[renumber(b), b2], np.r_[w, w2])
    np.testing.assert_array_equal(grown[0], remade[0])
    np.testing.assert_array_equal(grown[1], remade[1])
    np.testing.assert_allclose(grown[2], remade[2], rtol=1e-5)
    np.testing.assert_allclose(grown[3], remade[3], rtol=1e-9)
    with pytest.raises(ValueError, match="keep its earlier rows"):
        native.row_stochastic_patch(earlier, old_starts, old_starts - np.r_[0, 1, 1, 1], a2[:0], b2[:0], w2[:0])
    # The patch itself holds only the added nodes' rows and those the added edges touch, and local push over the
    # earlier arrays with it reaches what it reaches over the remade ones.
    touched = np.unique(np.r_[a2, b2][np.r_[w2, w2] > 0])
    is_new = np.zeros(n_new, bool)
    for k in range(3):
        is_new[new_starts[k] + old_sizes[k] : new_starts[k + 1]] = True
    np.testing.assert_array_equal(patch.nodes, np.union1d(touched, np.flatnonzero(is_new)))
    if n_new:
        seeds = rng.integers(0, n_new, 3)
        remade_csr = native.row_stochastic(n_new, np.r_[renumber(a), a2], np.r_[renumber(b), b2], np.r_[w, w2])
        passes = SimpleNamespace(indptr=remade_csr[0], indices=remade_csr[1], data=remade_csr[2])
        want = native.ppr_push(passes, seeds, np.ones(3), restart=0.25, epsilon=1e-9)
        base = SimpleNamespace(indptr=earlier[0], indices=earlier[1], data=earlier[2])
        got = native.ppr_push(base, seeds, np.ones(3), restart=0.25, epsilon=1e-9, patch=patch)
        np.testing.assert_allclose(_dense(got, n_new), _dense(want, n_new), atol=1e-6)


def _dense(result, n):
    out = np.zeros(n)
    out[result.nodes] = result.values
    return out


def test_a_patch_that_does_not_fit_its_base_is_refused():
    """A patch whose rows are out of order, leave an added node without a row, or point past the nodes: a ValueError
    naming what is wrong, before local push or flattening reads past an array."""
    earlier = native.row_stochastic(4, [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0])
    old_starts, new_starts = np.array([0, 2, 4]), np.array([0, 3, 6])
    patch = native.row_stochastic_patch(earlier, old_starts, new_starts, [2, 5], [0, 4], [1.0, 0.5])
    base = SimpleNamespace(indptr=earlier[0], indices=earlier[1], data=earlier[2])
    assert list(patch.nodes) == [0, 2, 4, 5]
    native.ppr_push(base, [5], [1.0], restart=0.25, epsilon=1e-6, patch=patch)
    broken = {
        "strictly increasing": replace(patch, nodes=patch.nodes[::-1].copy()),
        "every added node": replace(
            patch,
            nodes=patch.nodes[:-1].copy(),
            indptr=patch.indptr[:-1].copy(),
            indices=patch.indices[: patch.indptr[-2]].copy(),
            data=patch.data[: patch.indptr[-2]].copy(),
            degree=patch.degree[:-1].copy(),
        ),
        "indices must be in": replace(patch, indices=np.where(patch.indices == 0, 9, patch.indices).astype(np.int32)),
        "cover its rows": replace(patch, base_starts=np.array([0, 2, 5])),
    }
    for message, bad in broken.items():
        with pytest.raises(ValueError, match=message):
            native.ppr_push(base, [0], [1.0], restart=0.25, epsilon=1e-6, patch=bad)
        with pytest.raises(ValueError, match=message):
            native.row_stochastic_flatten(earlier, bad)


def test_local_push_is_local_and_checks_its_input():
    """On a long chain, a seed at one end with a coarse epsilon touches a handful of nodes, whatever the length."""
    for n in (1_000, 100_000):
        rows = np.arange(n - 1)
        passes = transition_matrix(n, rows, rows + 1, np.ones(n - 1)).T.tocsr()
        result = native.ppr_push(passes, [0], [1.0], restart=0.25, epsilon=1e-3)
        assert len(result.nodes) < 40 and result.pushes < 200 and 0 <= result.residual < 0.05
    with pytest.raises(ValueError, match="seed nodes"):
        native.ppr_push(passes, [n], [1.0], restart=0.25, epsilon=1e-3)
    with pytest.raises(ValueError, match="restart"):
        native.ppr_push(passes, [0], [1.0], restart=0.0, epsilon=1e-3)
    assert native.ppr_push(passes, [0], [0.0], restart=0.25, epsilon=1e-3).nodes.size == 0


def _kitchen(store):
    """The striped mug holds coffee on day 1 and is on the top shelf on day 3. Four other red mugs sit on
    the kitchen shelf every day, described so that text alone matches the question at least as well as
    the striped mug's later sighting: only its identity link leads there."""
    striped = unit(np.r_[np.ones(4), np.zeros(28)])
    coffee = store.ingest_clip(
        clip(1 * DAY),
        [observation(1, DAY, [0, 0, 40, 40], striped, description="a red striped mug full of coffee on the counter")],
    ).decisions[0]
    others = [unit(np.r_[np.zeros(4 * k), np.ones(4), np.zeros(28 - 4 * k)]) for k in range(1, 5)]
    for d in range(1, 4):
        t = d * DAY + 3600
        store.ingest_clip(
            clip(t),
            [
                observation(
                    k + 1,
                    t,
                    [100 * k, 0, 100 * k + 40, 40],
                    near(o, 0.97, seed=10 * d + k),
                    description="a red mug on the kitchen shelf",
                )
                for k, o in enumerate(others, start=1)
            ],
        )
    shelf = store.ingest_clip(
        clip(3 * DAY + 7200),
        [
            observation(
                1, 3 * DAY + 7200, [0, 0, 40, 40], near(striped, 0.97, seed=1), description="a red cup on the top shelf"
            )
        ],
    ).decisions[0]
    return coffee, shelf


def test_identity_links_bring_the_later_observation(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        coffee, shelf = _kitchen(store)
        assert shelf.entity_id == coffee.entity_id
        question = "Where is the mug that held coffee now?"
        config = RetrievalConfig(seeds_per_index=3, budget=6, per_entity_cap=2)
        with_identity = Retriever(store, embedder, config).retrieve(question)
        assert coffee.observation_id in with_identity.observation_ids
        assert shelf.observation_id in with_identity.observation_ids
        text_only = RetrievalConfig(
            seeds_per_index=3, budget=6, per_entity_cap=2, weights=RelationWeights(membership=0.0)
        )
        without = Retriever(store, embedder, text_only).retrieve(question)
        assert shelf.observation_id not in without.observation_ids
        context = render(store, with_identity)
        assert "top shelf" in context and f"Entity #{coffee.entity_id}" in context and "trust the episode" in context


def test_as_of_sees_nothing_later(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        coffee, shelf = _kitchen(store)
        evidence = Retriever(store, embedder, RetrievalConfig(budget=50)).retrieve("red cup", as_of=2 * DAY)
        shown = store.observations_by_id(evidence.observation_ids)
        assert shown and all(o.t_start < 2 * DAY for o in shown)
        context = render(store, evidence)
        assert "top shelf" not in context and "2026" not in context.split("As of")[0]
        assert "1970-01-04" not in context  # day 3 never appears, not even in the summaries


def test_a_window_the_question_names_leaves_out_later_records_but_walks_todays_memory(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        coffee, shelf = _kitchen(store)
        retriever = Retriever(store, embedder, RetrievalConfig(budget=50))
        evidence = retriever.retrieve("red cup", until=2 * DAY)
        shown = store.observations_by_id(evidence.observation_ids)
        assert coffee.observation_id in evidence.observation_ids and all(o.t_start < 2 * DAY for o in shown)
        assert shelf.observation_id not in evidence.observation_ids
        assert evidence.as_of == 2 * DAY and "top shelf" not in render(store, evidence)
        kept = retriever._graph
        retriever.retrieve("red cup", until=1.5 * DAY)
        assert retriever._graph is kept  # the graph of all memory, kept: no graph cut per window
        asked_then = retriever.retrieve("red cup", as_of=3 * DAY, until=2 * DAY)
        assert asked_then.as_of == 2 * DAY and shelf.observation_id not in asked_then.observation_ids


def test_as_of_a_time_after_all_of_memory_answers_from_the_whole_graph(tmp_path, embedder):
    """A question asked as of a time after everything memory holds (as the evaluation asks) is the whole graph: no
    graph cut from its rows, the same evidence as asked with no as-of."""
    with Store(tmp_path / "home") as store:
        _kitchen(store)
        retriever = Retriever(store, embedder, RetrievalConfig(budget=50))
        now = retriever.retrieve("red cup")
        graph = retriever._graph[1]
        assert retriever._graph_for(10 * DAY) is graph  # after all of it: not cut
        assert retriever._graph_for(2 * DAY) is not graph  # within it: cut to what memory held then
        later = retriever.retrieve("red cup", as_of=10 * DAY)
        assert (later.observation_ids, later.episode_ids) == (now.observation_ids, now.episode_ids)


def test_per_entity_cap_leaves_room_for_others(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        _kitchen(store)
        evidence = Retriever(store, embedder, RetrievalConfig(budget=8, per_entity_cap=1)).retrieve(
            "a red mug on the kitchen shelf"
        )
        per_entity = {}
        for o in store.observations_by_id(evidence.observation_ids):
            per_entity[o.entity_id] = per_entity.get(o.entity_id, 0) + 1
        assert max(per_entity.values()) == 1 and len(per_entity) >= 4
        assert "not shown: 2 more appearances" in render(store, evidence)


def test_same_name_note_and_forget(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        red = unit(np.r_[np.ones(4), np.zeros(28)])
        first = store.ingest_clip(
            clip(0),
            [
                observation(1, 0.0, [0, 0, 40, 40], red, description="a red mug by the kettle"),
                observation(2, 0.0, [300, 0, 340, 40], near(red, 0.97, seed=2), description="a red mug by the toaster"),
            ],
        ).decisions
        third = store.ingest_clip(
            clip(DAY),
            [observation(1, DAY, [0, 0, 40, 40], near(red, 0.2, seed=3), description="a red mug in the sink")],
        )
        for d in (*first, *third.decisions):
            corrections.rename(store, d.entity_id, "mug")
        retriever = Retriever(store, embedder, RetrievalConfig(budget=10))
        context = render(store, retriever.retrieve("red mug"))
        a, b, c = sorted({d.entity_id for d in (*first, *third.decisions)})
        assert f"#{a} and #{b} are both called 'mug'; memory has proof they are different instances" in context
        assert f"#{a} and #{c} are both called 'mug'; unresolved" in context
        corrections.forget(store, c)
        assert "sink" not in render(store, retriever.retrieve("a red mug in the sink"))
        assert store.db.query(
            "SELECT count(*) FROM vec_text_observation WHERE item_id = ?", (third.decisions[0].observation_id,)
        ) == [(0,)]


def test_index_catches_items_that_reuse_a_deleted_id(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        red = unit(np.r_[np.ones(4), np.zeros(28)])
        store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red, description="a red mug by the kettle")])
        last = store.ingest_clip(
            clip(DAY),
            [observation(1, DAY, [0, 0, 40, 40], near(red, 0.1, seed=5), description="a brown dog on the sofa")],
        )
        retriever = Retriever(store, embedder)
        retriever.index.update()
        corrections.forget(store, last.decisions[0].entity_id)
        again = store.ingest_clip(
            clip(2 * DAY),
            [
                observation(
                    1, 2 * DAY, [0, 0, 40, 40], near(red, 0.1, seed=6), description="a set of silver keys on the shelf"
                )
            ],
        )
        assert again.decisions[0].observation_id == last.decisions[0].observation_id  # SQLite reused the top id
        evidence = retriever.retrieve("silver keys")
        assert evidence.observation_ids[0] == again.decisions[0].observation_id
        assert retriever.index.pending() == 0


class ColourCLIP:
    """Stands in for a CLIP pair: an image is its mean colour, a text the colour words it names."""

    space, dims = "colour-clip", 3
    WORDS = {"red": (0, 0, 1), "green": (0, 1, 0), "blue": (1, 0, 0)}  # BGR

    def embed_images(self, images):
        v = np.array([im.reshape(-1, 3).mean(axis=0) for im in images], np.float32) + 1e-3
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed_texts(self, texts):
        v = np.array(
            [
                np.sum(
                    [self.WORDS[w.strip("?.,!")] for w in t.lower().split() if w.strip("?.,!") in self.WORDS]
                    or [(1, 1, 1)],
                    axis=0,
                )
                for t in texts
            ],
            np.float32,
        )
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_keyframe_seeds_reach_the_clip_observations(tmp_path, embedder):
    import cv2

    from edge_agent.memory import retention

    with Store(tmp_path / "home") as store:
        thing = unit(np.r_[np.ones(4), np.zeros(28)])
        ids = {}
        for day, colour in enumerate(("red", "green", "blue")):
            key = f"keyframes/{colour}.jpg"
            image = np.zeros((40, 40, 3), np.uint8)
            image[:] = np.array(ColourCLIP.WORDS[colour]) * 200
            store.media_path(key).parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(store.media_path(key)), image)
            d = store.ingest_clip(
                clip(day * DAY, keyframes=[key]),
                [observation(1, day * DAY, [0, 0, 40, 40], near(thing, 0.1, seed=day), description="")],
            ).decisions[0]
            ids[colour] = d.observation_id
        # Nothing in memory has text: only the question's match to the keyframes can find the green clip.
        config = RetrievalConfig(budget=1, seeds_per_index=1)
        retriever = Retriever(store, embedder, config, image_text=ColourCLIP())
        evidence = retriever.retrieve("what looked green?")
        text_only = Retriever(store, embedder, config).retrieve("what looked green?")
        assert evidence.seeds == {"semantic": 0, "lexical": 0, "keyframes": 1, "moments": 0}
        assert evidence.observation_ids == [ids["green"]] and text_only.observation_ids == []
        assert store.db.query("SELECT count(*) FROM vec_keyframe") == [(3,)]
        corrections.forget(store, store.observation(ids["green"]).entity_id)
        retention.enforce(store, retention.RetentionPolicy(max_age_days=1), now=2 * DAY + 10)  # drops day 0 (red)
        assert sorted(r[0] for r in store.db.query("SELECT item_id FROM vec_keyframe")) == [3]  # only blue is left
        assert ids["green"] not in retriever.retrieve("green").observation_ids


def test_lexical_leaves_out_words_in_half_the_records(tmp_path):
    from edge_agent.memory.textindex import TextIndex

    with Store(tmp_path / "home") as store:
        thing = unit(np.r_[np.ones(4), np.zeros(28)])
        texts = ["a red mug moving left", "a blue mug moving left", "a dog moving right", "silver keys on the shelf"]
        ids = [
            store.ingest_clip(
                clip(i * DAY), [observation(1, i * DAY, [0, 0, 40, 40], near(thing, 0.1, seed=i), description=text)]
            )
            .decisions[0]
            .observation_id
            for i, text in enumerate(texts)
        ]
        index = TextIndex(store, lambda texts: np.zeros((len(texts), 4), np.float32), "none", 4)
        # "moving" is in 3 of 4 records and "mug" in 2 of 4: BM25 weighs neither; "keys" is in one.
        assert index.lexical("moving mug") == []
        assert [i for _, i, _ in index.lexical("which keys were moving?")] == [ids[3]]
        assert [i for _, i, _ in index.lexical("the dog, moving")] == [ids[2]]
        more = [
            store.ingest_clip(
                clip(d * DAY), [observation(1, d * DAY, [0, 0, 40, 40], near(thing, 0.1, seed=d), description=text)]
            )
            .decisions[0]
            .observation_id
            for d, text in ((5, "a green mug"), (6, "a white cat"), (7, "a black cat"))
        ]
        # now "mug" is in 3 of 7 records: it counts again
        assert sorted(i for _, i, _ in index.lexical("mug")) == sorted(ids[:2] + more[:1])


def test_episodes_are_capped(tmp_path, embedder):
    with Store(tmp_path / "home") as store:
        thing = unit(np.r_[np.ones(4), np.zeros(28)])
        for k in range(12):
            t = DAY + 700.0 * k
            store.ingest_clip(
                clip(t),
                [observation(1, t, [0, 0, 40, 40], near(thing, 0.99, seed=k), description="a red mug by the sink")],
                caption="kitchen: a red mug by the sink",
            )
        evidence = Retriever(store, embedder, RetrievalConfig(budget=10, episode_cap=3)).retrieve("red mug by the sink")
        assert len(evidence.episode_ids) == 3 and len(evidence.observation_ids) == 6  # 6: the per-entity cap


def test_lexical_ranks_among_the_newest_matches(tmp_path):
    """The window bounds BM25 to the newest records matching: the cost of a common word stops growing with memory."""
    from edge_agent.memory.textindex import TextIndex

    with Store(tmp_path / "home") as store:
        thing = unit(np.r_[np.ones(4), np.zeros(28)])
        ids = [
            store.ingest_clip(
                clip(i * DAY),
                [observation(1, i * DAY, [0, 0, 40, 40], near(thing, 0.1, seed=i), description=f"a {c} teapot")],
            )
            .decisions[0]
            .observation_id
            for i, c in enumerate(["red", "blue", "green", "white", "black", "grey"])
        ]
        for i in range(7):  # "teapot" must stay informative: in fewer than half the records
            store.ingest_clip(
                clip((10 + i) * DAY),
                [observation(1, (10 + i) * DAY, [0, 0, 40, 40], near(thing, 0.1, seed=20 + i), description="a sofa")],
            )
        index = TextIndex(store, lambda texts: np.zeros((len(texts), 4), np.float32), "none", 4)
        assert sorted(i for k, i, _ in index.lexical("teapot") if k == "observation") == ids
        assert sorted(i for k, i, _ in index.lexical("teapot", window=2) if k == "observation") == ids[-2:]
        as_of = [i for k, i, _ in index.lexical("teapot", window=2, before=3.5 * DAY) if k == "observation"]
        assert sorted(as_of) == ids[2:4]  # the newest two before then


def test_the_graph_is_saved_and_opened_while_current(tmp_path, embedder):
    from edge_agent.retrieval.graph import MemoryGraph, load_graph

    home = tmp_path / "home"
    with Store(home) as store:
        coffee, shelf = _kitchen(store)
        weights = RelationWeights()
        built = load_graph(store, weights)
        assert not isinstance(built.passes.indptr, np.memmap)
        opened = load_graph(store, weights)  # saved by the first: mapped, not rebuilt
        assert isinstance(opened.passes.indptr, np.memmap)
        for name in ("indptr", "indices", "data"):
            np.testing.assert_array_equal(getattr(opened.passes, name), getattr(built.passes, name))
        np.testing.assert_array_equal(opened.observation_ids, built.observation_ids)
        seeds = np.zeros(built.n)
        seeds[:3] = 1.0
        a, b = local_push(built.passes, seeds), local_push(opened.passes, seeds)
        np.testing.assert_array_equal(a[0], b[0]) and np.testing.assert_allclose(a[1], b[1])
        assert (opened.transitions != built.transitions).nnz == 0

        revision = store.graph_revision()
        with store.write():  # a description is not part of the graph ...
            store.db.execute("UPDATE observations SET description = 'a mug' WHERE id = ?", (shelf.observation_id,))
        assert store.graph_revision() == revision
        assert isinstance(load_graph(store, weights).passes.indptr, np.memmap)
        corrections.split(store, shelf.entity_id, shelf.observation_id)  # ... an observation's entity is
        assert store.graph_revision() > revision
        rebuilt = load_graph(store, weights)
        assert not isinstance(rebuilt.passes.indptr, np.memmap)
        assert len(rebuilt.entity_ids) == len(built.entity_ids) + 1
        assert not isinstance(load_graph(store, RelationWeights(membership=0.5)).passes.indptr, np.memmap)

        folder = home / "index" / "graph"
        saved = next(p for p in folder.iterdir() if p.is_dir())
        assert json.loads((folder / "current.json").read_text())["revision"] == store.graph_revision()
        assert MemoryGraph.load(folder) is not None
        (saved / "indices.npy").write_bytes(b"damaged")
        assert MemoryGraph.load(folder) is None  # a warning, never an error
        again = load_graph(store, RelationWeights(membership=0.5))
        assert again.n == rebuilt.n  # rebuilt from memory, and saved again
        assert [p.name for p in folder.iterdir() if p.is_dir()] != [saved.name]


def _assert_same_graph(got, want):
    """The same nodes, links and rows; shares equal up to float32 rounding (a grown graph's touched rows are made from
    their earlier shares times their weight sums): a grown graph's base with its patch joined."""
    got, want = got.flat(), want.flat()
    for name in ("indptr", "indices"):
        np.testing.assert_array_equal(getattr(got.passes, name), getattr(want.passes, name), err_msg=name)
    np.testing.assert_allclose(got.passes.data, want.passes.data, rtol=1e-5, err_msg="data")
    np.testing.assert_allclose(got.degree, want.degree, rtol=1e-9, err_msg="degree")
    np.testing.assert_array_equal(got.entity_ids, want.entity_ids)
    for name, array in want.rows.arrays().items():
        np.testing.assert_array_equal(getattr(got.rows, name), array, err_msg=name)


def test_a_saved_graph_is_brought_up_to_date_from_the_rows_that_changed(tmp_path, monkeypatch):
    from edge_agent.retrieval.graph import GraphRows, MemoryGraph, load_graph

    with Store(tmp_path / "home") as store:
        coffee, shelf = _kitchen(store)
        weights = RelationWeights()
        load_graph(store, weights)  # made from all of memory, saved
        assert store.db.value("SELECT count(*) FROM graph_changes") == 0  # what changed before it is let go
        read_whole = GraphRows.read
        monkeypatch.setattr(GraphRows, "read", classmethod(lambda cls, s: pytest.fail("memory read whole")))
        cup = unit(np.r_[np.zeros(30), np.ones(2)])

        def captioned(t, camera="kitchen"):
            return lambda: store.ingest_clip(
                clip(t, camera=camera), [observation(1, t, [0, 0, 40, 40], cup)], caption=f"{camera}: a cup"
            )

        def relate():
            a, b = (r[0] for r in store.db.query("SELECT id FROM entities ORDER BY id DESC LIMIT 2")[::-1])
            with store.write():
                store.db.execute(
                    "INSERT INTO entity_relations (entity_a, entity_b, relation, score, updated_at) "
                    "VALUES (?, ?, 'possibly_same', 0.8, 0)",
                    (a, b),
                )

        def delete_clip():
            with store.write():  # its observations and episodes go with it (foreign keys)
                store.db.execute("DELETE FROM clips WHERE id = (SELECT min(id) FROM clips)")

        steps = [  # clips (of a second camera too), a closed ten minutes (its clips' parent), closed episodes, ...
            captioned(4 * DAY),
            captioned(4 * DAY + 120, camera="hall"),
            captioned(4 * DAY + 700),
            store.close_episodes,
            lambda: corrections.split(store, shelf.entity_id, shelf.observation_id),
            relate,
            lambda: corrections.forget(store, coffee.entity_id),
            delete_clip,
        ]
        first = load_graph(store, weights)
        graph = first
        grown = []
        grow = MemoryGraph.grown

        def growing(self, *args):
            result = grow(self, *args)
            grown.append(result is not None)
            return result

        monkeypatch.setattr(MemoryGraph, "grown", growing)
        for k, step in enumerate(steps):
            before = store.graph_revision()
            step()
            assert store.graph_revision() > before
            graph = load_graph(store, weights, graph if k % 2 else None)  # from this process's graph, or the saved one
            assert graph.revision == store.graph_revision()
            _assert_same_graph(graph, MemoryGraph.of(read_whole(store), weights))
        # Clips added (of another camera too) grow the graph from its arrays; the episodes closed change earlier
        # episodes' links, and a split, a relation, a forgotten entity and a deleted clip change earlier rows: remade.
        assert grown == [True, True, True, False, False, True, False, False]
        saved, _ = MemoryGraph.load(tmp_path / "home" / "index" / "graph")
        assert saved.revision == first.revision  # a few clips' changes do not rewrite the saved arrays
        assert (
            len(graph.rows.cameras) == 2
            and (graph.rows.episode_parents >= 0).any()
            and len(graph.rows.entity_relations)
        )

        # A graph saved before changes memory no longer records (let go after a later graph was saved): read whole.
        store.ingest_clip(clip(7 * DAY), [observation(1, 7 * DAY, [0, 0, 40, 40], cup)])
        store.forget_graph_changes(store.graph_revision())
        with pytest.raises(pytest.fail.Exception, match="read whole"):
            load_graph(store, weights)
        monkeypatch.undo()
        _assert_same_graph(load_graph(store, weights), MemoryGraph.build(store, weights))

        # Saved again once memory has changed enough since; what changed before it is then let go.
        monkeypatch.setattr("edge_agent.retrieval.graph.SAVE_AFTER_CHANGES", 2)
        store.ingest_clip(clip(8 * DAY), [observation(1, 8 * DAY, [0, 0, 40, 40], cup)])
        load_graph(store, weights)
        assert MemoryGraph.load(tmp_path / "home" / "index" / "graph")[0].revision == store.graph_revision()
        assert store.db.value("SELECT count(*) FROM graph_changes") == 0


def test_a_graph_grown_by_clips_keeps_the_saved_arrays_and_patches_them(tmp_path, monkeypatch):
    """A new process whose saved graph is a clip behind maps the saved arrays and patches the rows the clip adds or
    touches (no copy of the year's arrays); a later clip grows the patch from the same base; local push over base and
    patch reaches what it reaches over the graph remade; once memory has moved on far enough the patch is joined and
    the graph saved again."""
    from edge_agent.retrieval.graph import GraphRows, MemoryGraph, load_graph

    with Store(tmp_path / "home") as store:
        _kitchen(store)
        weights = RelationWeights()
        load_graph(store, weights)  # saved
        cup = unit(np.r_[np.zeros(30), np.ones(2)])
        graph = None
        for k, t in enumerate((4 * DAY, 4 * DAY + 60)):
            store.ingest_clip(clip(t), [observation(1, t, [0, 0, 40, 40], cup)], caption="kitchen: a cup")
            graph = load_graph(store, weights, graph)
            assert isinstance(graph.passes.indptr, np.memmap) and graph.patch is not None
            assert len(graph.patch.nodes) < 12 * (k + 1)  # the clip's rows and the few they link to
            remade = MemoryGraph.of(GraphRows.read(store), weights)
            _assert_same_graph(graph, remade)
            for node in range(graph.n):
                got = native.ppr_push(graph.passes, [node], [1.0], restart=0.25, epsilon=1e-9, patch=graph.patch)
                want = native.ppr_push(remade.passes, [node], [1.0], restart=0.25, epsilon=1e-9)
                np.testing.assert_allclose(_dense(got, graph.n), _dense(want, graph.n), atol=1e-6)
            ids = store.db.query("SELECT id FROM observations ORDER BY id")
            np.testing.assert_array_equal(
                graph.nodes("observation", [i for (i,) in ids]), np.arange(len(ids))
            )  # found in the base's rows and the added ones alike
        saved, _ = MemoryGraph.load(tmp_path / "home" / "index" / "graph")
        assert saved.revision < store.graph_revision()
        monkeypatch.setattr("edge_agent.retrieval.graph.SAVE_AFTER_CHANGES", 2)
        store.ingest_clip(clip(5 * DAY), [observation(1, 5 * DAY, [0, 0, 40, 40], cup)])
        graph = load_graph(store, weights, graph)
        assert graph.patch is None and not isinstance(graph.passes.indptr, np.memmap)
        assert MemoryGraph.load(tmp_path / "home" / "index" / "graph")[0].revision == store.graph_revision()
        _assert_same_graph(graph, MemoryGraph.of(GraphRows.read(store), weights))


def test_a_graph_as_of_a_moment_holds_what_memory_held_then(tmp_path):
    from edge_agent.retrieval.graph import MemoryGraph

    with Store(tmp_path / "home") as store:
        _kitchen(store)
        cut = 2 * DAY + 7200
        then = MemoryGraph.of(MemoryGraph.build(store).rows.before(cut))
        ids = [r[0] for r in store.db.query("SELECT id FROM observations WHERE t_start < ? ORDER BY id", (cut,))]
        np.testing.assert_array_equal(then.observation_ids, ids)
        assert set(then.clip_ids) == {r[0] for r in store.db.query("SELECT id FROM clips WHERE t_start < ?", (cut,))}
        with store.write():  # and the same graph as a memory made of only those rows
            store.db.execute("DELETE FROM clips WHERE t_start >= ?", (cut,))
        _assert_same_graph(then, MemoryGraph.build(store))


def test_a_fresh_retriever_answers_from_the_saved_graph(tmp_path, embedder):
    home = tmp_path / "home"
    with Store(home) as store:
        _kitchen(store)
        question = "Where is the mug that held coffee now?"
        first = Retriever(store, embedder).retrieve(question)
    with Store(home) as store:
        second = Retriever(store, embedder).retrieve(question)
        assert (second.observation_ids, second.episode_ids) == (first.observation_ids, first.episode_ids)


def test_ids_are_found_by_table_when_dense_and_by_search_when_sparse():
    from edge_agent.retrieval.graph import _distinct, _positions

    dense = np.array([3, -1, 7, 3, 5, 7, -1], np.int64)
    assert _distinct(dense).tolist() == [3, 5, 7] and _distinct(dense).dtype == np.int64
    sparse = np.array([10**12, 5, -1, 10**12], np.int64)  # ids far apart: no table the size of the largest
    assert _distinct(sparse).tolist() == [5, 10**12]
    for ids in (np.array([3, 5, 7]), np.array([5, 10**12])):
        values = np.array([7, 4, -1, 5, 10**12, 10**13, 3])
        expected = [ids.tolist().index(v) if v in ids.tolist() else -1 for v in values.tolist()]
        assert _positions(ids, values).tolist() == expected
    assert _positions(np.array([], np.int64), np.array([1, 2])).tolist() == [-1, -1]


def test_every_stage_is_timed_also_when_the_question_names_a_moment(tmp_path, embedder):
    """The seeds' time was the current clock minus the moment named once a loop variable took the timer's name
    (issue 42): a question naming a time had a "seeds" figure of minus the time since 1970."""
    with Store(tmp_path / "home") as store:
        _kitchen(store)
        for around in ((), (DAY + 60.0,)):
            timings = Retriever(store, embedder).retrieve("red cup", around=around).timings_ms
            assert set(timings) >= {"index", "seeds", "ppr", "select"}
            assert all(0 <= ms < 600_000 for ms in timings.values()), timings


def test_timed_adds_a_blocks_milliseconds_also_when_it_raises():
    from edge_agent.timing import timed

    timings: dict[str, float] = {"seeds": 1.0}
    with timed(timings, "seeds"):
        pass
    with pytest.raises(ValueError), timed(timings, "ppr"):
        raise ValueError("stage failed")
    assert timings["seeds"] >= 1.0 and timings["ppr"] >= 0.0
