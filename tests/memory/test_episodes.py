"""Episodes roll up: clip captions into 10-minute, hour and day episodes per camera, written once a
window is closed, rewritten by a late clip, and kept free of what forget and retention removed."""

from __future__ import annotations

import numpy as np
from helpers.memory import DAY, clip, near, observation, said, unit

from edge_agent.memory import Store, corrections, retention
from edge_agent.retrieval import MemoryGraph

T0 = 10 * DAY + 7 * 3600  # 07:00 UTC
MUG, DOG = unit(np.r_[np.ones(4), np.zeros(28)]), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(24)])


def _clip(store, t, camera="kitchen", dog=False):
    things = [
        observation(
            1,
            t,
            [0, 0, 40, 40],
            near(MUG, 0.99, seed=int(t)),
            description=said("cup", colour="red", pattern="plain", zone="sink"),
        )
    ]
    if dog:
        things.append(
            observation(
                2,
                t,
                [100, 0, 180, 60],
                near(DOG, 0.99, seed=int(t) + 1),
                kind="animal",
                category="dog",
                description=said("dog", colour="brown", pattern="plain", zone="sofa", motion="moving left"),
            )
        )
    return store.ingest_clip(clip(t, camera=camera), things, caption=f"{camera}: a cup" + (", a dog" if dog else ""))


def _episodes(store, scale):
    return store.db.query(
        "SELECT id, camera, t_start, t_end, parent_id, text FROM episodes WHERE scale = ? ORDER BY t_start", (scale,)
    )


def test_windows_close_as_clips_arrive(tmp_path):
    with Store(tmp_path / "home") as store:
        for k in range(13):  # a clip every 2 minutes, 07:00 to 07:24
            _clip(store, T0 + 120 * k, dog=k == 3)
        tens = _episodes(store, "10min")
        assert [(t0 - T0, t1 - T0) for _, _, t0, t1, _, _ in tens] == [(0, 490), (600, 1090)]  # 07:20 window still open
        assert _episodes(store, "hour") == []
        first = tens[0][5]
        dog = store.observations_in_clip(store.db.query("SELECT id FROM clips ORDER BY t_start")[3][0])[1].entity_id
        assert f"#{dog} plain brown dog (1 sighting, moving)" in first and "plain red cup (5 sightings)" in first
        children = store.db.query(
            "SELECT count(*) FROM episodes WHERE scale = 'clip' AND parent_id = ?", (tens[0][0],)
        )[0][0]
        assert children == 5
        closed = store.close_episodes()
        assert (
            len(_episodes(store, "10min")) == 3
            and len(_episodes(store, "hour")) == 1
            and len(_episodes(store, "day")) == 1
        )
        assert len(closed) == 3
        hour, day = _episodes(store, "hour")[0], _episodes(store, "day")[0]
        assert hour[4] == day[0] and all(e[4] == hour[0] for e in _episodes(store, "10min"))
        graph = MemoryGraph.build(store)
        assert len(graph.episode_ids) == 13 + 3 + 1 + 1
        base = graph.n - len(graph.episode_ids)
        first, second = (base + int(np.searchsorted(graph.episode_ids, e[0])) for e in _episodes(store, "10min")[:2])
        assert graph.transitions[first, second] > 0 and graph.transitions[second, first] > 0  # temporal adjacency


def test_late_clip_rewrites_its_window_and_cameras_stay_apart(tmp_path):
    with Store(tmp_path / "home") as store:
        _clip(store, T0)
        _clip(store, T0 + 700)  # closes 07:00-07:10
        _clip(store, T0 + 30, camera="hall")  # another camera: its own windows
        assert [e[1] for e in _episodes(store, "10min")] == ["kitchen"]
        before = _episodes(store, "10min")[0]
        from edge_agent.memory.textindex import TextIndex

        index = TextIndex(store, lambda texts: np.ones((len(texts), 4), np.float32) / 2, "flat", 4)
        index.update()
        _clip(store, T0 + 300, dog=True)  # late, into the closed window
        _clip(store, T0 + 800)
        after = _episodes(store, "10min")
        assert len(after) == 1 and after[0][0] == before[0] and "dog" in after[0][5] and "dog" not in before[5]
        assert (
            index.pending() > 0 and index.update() > 0 and index.pending() == 0
        )  # its vector is made again from the new text


def test_forget_and_retention_leave_no_trace_in_summaries(tmp_path):
    with Store(tmp_path / "home") as store:
        for k in range(4):
            _clip(store, T0 + 120 * k, dog=k == 1)
        _clip(store, T0 + 3 * 3600)
        dog = store.entities("animal")[0].id
        assert any(f"#{dog} " in e[5] for e in _episodes(store, "10min") + _episodes(store, "hour"))
        corrections.forget(store, dog)
        assert not any(
            f"#{dog} " in e[5] or "dog" in e[5] for e in store.db.query("SELECT 0, 0, 0, 0, 0, text FROM episodes")
        )
        retention.enforce(
            store, retention.RetentionPolicy(max_age_days=0.05), now=T0 + 3 * 3600 + 60
        )  # drops 07:00-07:06
        assert _episodes(store, "10min") == [] and _episodes(store, "hour") == []  # nothing left under them


class _Model:
    def __init__(self, reply):
        self.reply, self.prompts = reply, []

    def create_chat_completion(self, messages, max_tokens, temperature):
        self.prompts.append(messages[-1]["content"])
        if isinstance(self.reply, Exception):
            raise self.reply
        return {"choices": [{"message": {"content": self.reply}}]}


def test_summaries_by_an_llm_from_memory_facts_with_the_extractive_text_as_fallback(tmp_path):
    from edge_agent.memory.episodes import LLMSummarizer, Seen

    with Store(tmp_path / "home") as store:
        store.summarize = LLMSummarizer(_Model("A red cup stayed by the sink;  a dog came by."))
        for k in range(6):
            _clip(store, T0 + 120 * k, dog=k == 3)
        text = _episodes(store, "10min")[0][5]
        assert text.endswith("UTC: A red cup stayed by the sink; a dog came by.") and "(10min)" not in text
        assert "plain red cup (5 sightings)" in store.summarize.llm.prompts[0]  # the model reads what memory holds
        invented = LLMSummarizer(_Model("kitchen, 2026 (10min): #99 a cat slept."))
        assert invented("10min", "kitchen", T0, T0 + 600, [Seen(1, "red cup", False)]).endswith(
            "#1 red cup (1 sighting)"
        )
        assert invented.failures == 1  # #99 was never seen there: the extractive text stands
        copied = LLMSummarizer(_Model("kitchen, 1970-01-11 07:00:00 to 07:10:00 UTC (10min): A cup stayed."))
        assert copied("10min", "kitchen", T0, T0 + 600, [Seen(1, "red cup", False)]).endswith("UTC: A cup stayed.")
        plain = LLMSummarizer(_Model("kitchen, 1970-01-11 07:00:00 to 07:10:00 UTC: A cup stayed."))
        assert plain("10min", "kitchen", T0, T0 + 600, [Seen(1, "red cup", False)]).endswith("UTC: A cup stayed.")
        store.summarize = LLMSummarizer(_Model(RuntimeError("out of memory")))
        store.close_episodes()
        assert "thing seen" in _episodes(store, "10min")[1][5] and store.summarize.failures == 3  # 10 min, hour, day
