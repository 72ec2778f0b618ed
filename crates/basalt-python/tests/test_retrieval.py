"""Retrieval from Python: vectors from numpy through an HNSW index, full-text search with a
`USING fts` index, and the hybrid rrf(...) fusion of both (docs/sql.md)."""

import random

import numpy as np
import pytest

import basalt

N = 3000
DIM = 16
WORDS = ["basalt", "granite", "lava", "quartz", "magma", "crystal", "mineral", "rock",
         "stone", "sand", "clay", "ash", "pumice", "obsidian", "feldspar", "mica"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = np.random.default_rng(42)
    vectors = rng.standard_normal((N, DIM)).astype(np.float32)
    random.seed(42)
    texts = [" ".join(random.choice(WORDS) for _ in range(random.randint(3, 12))) for _ in range(N)]
    path = str(tmp_path_factory.mktemp("retrieval") / "docs.basalt")
    con = basalt.connect(path)
    con.execute(f"CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT, emb VECTOR({DIM}))")
    with con:
        con.executemany(
            "INSERT INTO docs VALUES (?, ?, ?)",
            ((i + 1, texts[i], vectors[i]) for i in range(N)),
        )
    con.execute("CREATE INDEX docs_emb ON docs USING hnsw (emb vector_l2_ops)")
    con.execute("CREATE INDEX docs_fts ON docs USING fts (body)")
    yield con, vectors, texts
    con.close()


def exact_top(vectors, query, k):
    distances = np.linalg.norm(vectors.astype(np.float64) - query.astype(np.float64), axis=1)
    return [int(i) + 1 for i in np.argsort(distances, kind="stable")[:k]], distances


def test_vector_top_k_through_hnsw(corpus):
    con, vectors, _ = corpus
    plan = "\n".join(r[0] for r in con.execute(
        "EXPLAIN SELECT id FROM docs ORDER BY emb <-> ? LIMIT 10", (vectors[0],)).fetchall())
    assert "Vector Search using docs_emb" in plan
    rng = np.random.default_rng(7)
    recalls = []
    for _ in range(20):
        query = rng.standard_normal(DIM).astype(np.float32)
        rows = con.execute(
            "SELECT id, emb <-> ? AS distance FROM docs ORDER BY emb <-> ? LIMIT 10",
            (query, query),
        ).fetchall()
        expected, distances = exact_top(vectors, query, 10)
        assert len(rows) == 10
        assert [r[1] for r in rows] == sorted(r[1] for r in rows)
        for id_, distance in rows:
            assert distance == pytest.approx(distances[id_ - 1], rel=1e-5)
        recalls.append(len(set(expected) & {r[0] for r in rows}) / 10)
    assert np.mean(recalls) >= 0.9, recalls


def test_exact_vector_search_matches_numpy(corpus):
    con, vectors, _ = corpus
    con.execute("SET hnsw.exact_search = on")
    try:
        query = np.random.default_rng(3).standard_normal(DIM).astype(np.float32)
        rows = con.execute("SELECT id FROM docs ORDER BY emb <-> ? LIMIT 10", (query,)).fetchall()
        assert [r[0] for r in rows] == exact_top(vectors, query, 10)[0]
    finally:
        con.execute("SET hnsw.exact_search = off")


def test_full_text_match_and_bm25(corpus):
    con, _, texts = corpus
    plan = "\n".join(r[0] for r in con.execute(
        "EXPLAIN SELECT id FROM docs WHERE fts_match(body, 'obsidian')").fetchall())
    assert "docs_fts" in plan
    ids = [r[0] for r in con.execute(
        "SELECT id FROM docs WHERE fts_match(body, 'obsidian AND mica') ORDER BY id")]
    expected = [i + 1 for i, t in enumerate(texts) if "obsidian" in t.split() and "mica" in t.split()]
    assert ids == expected and len(ids) > 50
    top = con.execute(
        "SELECT id, bm25_score(body, 'obsidian') AS score FROM docs "
        "WHERE fts_match(body, 'obsidian') ORDER BY score DESC, id LIMIT 20").fetchall()
    assert len(top) == 20
    scores = [s for _, s in top]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    # BM25 favours a high share of the term: the best document is mostly 'obsidian'.
    best = texts[top[0][0] - 1].split()
    share = best.count("obsidian") / len(best)
    shares = [t.split().count("obsidian") / len(t.split()) for t in texts if "obsidian" in t.split()]
    assert share >= np.percentile(shares, 90)


def test_hybrid_rrf_equals_fusion_in_python(corpus):
    con, vectors, _ = corpus
    query = vectors[123] + np.float32(0.01)
    lexical = [r[0] for r in con.execute(
        "SELECT id FROM docs WHERE fts_match(body, ?) ORDER BY bm25_score(body, ?) DESC, id LIMIT 100",
        ("granite", "granite"))]
    semantic = [r[0] for r in con.execute(
        "SELECT id FROM docs ORDER BY emb <-> ? LIMIT 100", (query,))]
    fused = con.execute(
        """SELECT id, score FROM rrf(
             (SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY bm25_score(body, $1) DESC, id LIMIT 100),
             (SELECT id FROM docs ORDER BY emb <-> $2 LIMIT 100),
             weights => (0.5, 0.5))
           ORDER BY score DESC, id LIMIT 10""",
        ("granite", query),
    ).fetchall()
    scores = {}
    for ranked in (lexical, semantic):
        for rank, id_ in enumerate(ranked, start=1):
            scores[id_] = scores.get(id_, 0.0) + 0.5 / (60 + rank)
    expected = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:10]
    assert [r[0] for r in fused] == [e[0] for e in expected]
    for (_, got), (_, want) in zip(fused, expected):
        assert got == pytest.approx(want, rel=1e-12)
    # Both branches found some documents, and those rank first.
    both = set(lexical) & set(semantic)
    assert both and fused[0][0] in both
