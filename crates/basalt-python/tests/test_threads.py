"""Threads: several threads with their own connections to one file database, and statements
that release the GIL while they run."""

import threading
import time

import basalt

THREADS = 4
ROWS_PER_THREAD = 2500


def test_threads_with_their_own_connections(path):
    setup = basalt.connect(path)
    setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, worker INTEGER, n INTEGER)")
    setup.close()
    errors = []
    seen = {}

    def work(worker):
        try:
            con = basalt.connect(path)
            for start in range(0, ROWS_PER_THREAD, 500):
                with con:
                    con.executemany(
                        "INSERT INTO t (worker, n) VALUES (?, ?)",
                        [(worker, n) for n in range(start, start + 500)],
                    )
                # Reads run beside the other threads' writes.
                seen[worker] = con.execute(
                    "SELECT count(*), sum(n) FROM t WHERE worker = ?", (worker,)
                ).fetchone()
            con.close()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    total = sum(range(ROWS_PER_THREAD))
    assert seen == {w: (ROWS_PER_THREAD, total) for w in range(THREADS)}
    con = basalt.connect(path)
    assert con.execute("SELECT count(*), count(DISTINCT worker) FROM t").fetchone() == (
        THREADS * ROWS_PER_THREAD, THREADS)


def test_statements_release_the_gil(path):
    """A long query in one thread must let another Python thread run meanwhile."""
    con = basalt.connect(path)
    con.execute("CREATE TABLE a (x INTEGER)")
    with con:
        con.executemany("INSERT INTO a VALUES (?)", [(i,) for i in range(3000)])
    sql = "SELECT count(*) FROM a AS p, a AS q WHERE (p.x * 7 + q.x) % 13 = 5"
    started = time.perf_counter()
    (expected,) = con.execute(sql).fetchone()
    alone = time.perf_counter() - started
    assert expected > 0 and alone > 0.05, "the query must take long enough to observe"

    result = {}

    def query():
        own = basalt.connect(path)
        result["count"] = own.execute(sql).fetchone()[0]

    ticks = 0
    thread = threading.Thread(target=query)
    thread.start()
    while thread.is_alive():
        ticks += 1
        time.sleep(0.0005)
    thread.join()
    assert result["count"] == expected
    # With the GIL held for the query, this loop would not run until it ended.
    assert ticks >= 20, f"main thread ran only {ticks} times during a {alone:.2f}s query"


def test_interrupt_from_another_thread(path):
    con = basalt.connect(path)
    con.execute("CREATE TABLE a (x INTEGER)")
    with con:
        con.executemany("INSERT INTO a VALUES (?)", [(i,) for i in range(5000)])
    timer = threading.Timer(0.05, con.interrupt)
    timer.start()
    try:
        con.execute("SELECT count(*) FROM a AS p, a AS q, a AS r").fetchone()
    except basalt.OperationalError as error:
        assert error.sqlstate == "57014"
    else:
        raise AssertionError("the query was not interrupted")
    finally:
        timer.cancel()
    assert con.execute("SELECT count(*) FROM a").fetchone() == (5000,)
