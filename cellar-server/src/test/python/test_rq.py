"""RQ (the Python job queue, PyPI "rq") running jobs end to end against the server.

Run by RqClientTest with the server's port in CELLAR_TEST_PORT. The jobs run in this process
(SimpleWorker, burst mode): what is tested is RQ's use of Redis (lists, hashes, sets, sorted
sets, pipelines, transactions, WATCH, expiry), not forking.
"""
import os
import time

import pytest
import redis
from rq import Queue, Retry, SimpleWorker
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, FinishedJobRegistry


def add(x, y):
    return x + y


def fail(message):
    raise ValueError(message)


_attempts = {"n": 0}


def flaky():
    _attempts["n"] += 1
    if _attempts["n"] < 3:
        raise RuntimeError("not yet")
    return "third time"


@pytest.fixture
def conn():
    r = redis.Redis(host="127.0.0.1", port=int(os.environ["CELLAR_TEST_PORT"]))
    r.flushall()
    yield r
    r.close()


def run_worker(conn, queues):
    worker = SimpleWorker(queues, connection=conn)
    worker.work(burst=True)
    return worker


def test_jobs_run_and_their_results_are_kept(conn):
    q = Queue("default", connection=conn)
    jobs = [q.enqueue(add, i, 10) for i in range(20)]
    assert q.count == 20
    run_worker(conn, [q])
    assert q.count == 0
    for i, job in enumerate(jobs):
        job.refresh()
        assert job.get_status() == JobStatus.FINISHED
        assert job.return_value() == i + 10
    assert len(FinishedJobRegistry(queue=q)) == 20


def test_a_failing_job_lands_in_the_failed_registry(conn):
    q = Queue("default", connection=conn)
    job = q.enqueue(fail, "boom")
    run_worker(conn, [q])
    job.refresh()
    assert job.get_status() == JobStatus.FAILED
    assert "boom" in job.latest_result().exc_string
    registry = FailedJobRegistry(queue=q)
    assert job.id in registry.get_job_ids()
    registry.requeue(job.id)
    assert q.count == 1


def test_retries_until_the_job_succeeds(conn):
    _attempts["n"] = 0
    q = Queue("default", connection=conn)
    job = q.enqueue(flaky, retry=Retry(max=3))
    for _ in range(3):
        run_worker(conn, [q])
    job.refresh()
    assert job.get_status() == JobStatus.FINISHED
    assert job.return_value() == "third time"


def test_a_dependent_job_waits_for_its_dependency(conn):
    q = Queue("default", connection=conn)
    first = q.enqueue(add, 1, 2)
    second = q.enqueue(add, 3, 4, depends_on=first)
    assert second.get_status() == JobStatus.DEFERRED
    run_worker(conn, [q])
    second.refresh()
    assert first.return_value() == 3
    assert second.return_value() == 7


def test_queues_priorities_and_cancellation(conn):
    high = Queue("high", connection=conn)
    low = Queue("low", connection=conn)
    a = low.enqueue(add, 1, 1)
    b = high.enqueue(add, 2, 2)
    c = low.enqueue(add, 3, 3)
    c.cancel()
    assert c.get_status() == JobStatus.CANCELED
    assert sorted(q.name for q in Queue.all(connection=conn)) == ["high", "low"]
    run_worker(conn, [high, low])
    assert a.return_value() == 2
    assert b.return_value() == 4
    assert Job.fetch(c.id, connection=conn).get_status() == JobStatus.CANCELED


def test_results_expire_with_their_ttl(conn):
    q = Queue("default", connection=conn)
    job = q.enqueue(add, 5, 5, result_ttl=4)
    run_worker(conn, [q])
    assert job.return_value() == 10
    assert 0 < conn.ttl(job.key) <= 4
    deadline = time.time() + 15
    while conn.exists(job.key) and time.time() < deadline:
        time.sleep(0.1)
    assert not conn.exists(job.key)
