"""redis-py against a running server, over RESP2 and RESP3.

Run by RedisPyClientTest (JUnit), which starts the server and passes its port in CELLAR_TEST_PORT:

    CELLAR_TEST_PORT=6379 python3 -m pytest -q cellar-server/src/test/python/test_redis_py.py

Each test starts from an empty keyspace (FLUSHALL).
"""

import os
import time

import pytest
import redis

PORT = int(os.environ["CELLAR_TEST_PORT"])


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def r(request):
    client = redis.Redis(host="127.0.0.1", port=PORT, protocol=request.param, decode_responses=True,
                         socket_timeout=10)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def raw():
    client = redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=10)
    client.flushall()
    yield client
    client.close()


def test_handshake_negotiates_the_protocol(r):
    assert r.ping() is True
    info = r.client_info()
    assert info["resp"] == str(r.get_connection_kwargs()["protocol"])
    assert r.client_setname("py-test") is True
    assert r.client_getname() == "py-test"


def test_strings(r):
    assert r.set("k", "v") is True
    assert r.get("k") == "v"
    assert r.get("missing") is None
    assert r.set("new", "1", get=True) is None  # SET ... GET on a missing key
    assert r.set("new", "2", get=True) == "1"
    assert r.set("k", "w", nx=True) is None
    assert r.set("k", "w", xx=True, ex=100) is True
    assert r.ttl("k") == 100
    assert r.setnx("n", 0) is True
    assert r.incrby("n", 5) == 5
    assert r.decr("n") == 4
    assert r.incrbyfloat("n", 1.5) == 5.5
    assert r.mset({"a": "1", "b": "2"}) is True
    assert r.mget("a", "b", "c") == ["1", "2", None]
    assert r.msetnx({"c": "3", "a": "x"}) is False
    assert r.append("a", "23456") == 6
    assert r.strlen("a") == 6
    assert r.getrange("a", 1, 4) == "2345"
    assert r.setrange("a", 0, "X") == 6
    assert r.getdel("a") == "X23456"
    assert r.getset("k", "z") == "w"
    assert r.getex("k", px=50_000) == "z"
    assert 40_000 < r.pttl("k") <= 50_000
    assert r.getex("k", persist=True) == "z"
    assert r.ttl("k") == -1


def test_keyspace(r):
    for i in range(300):
        r.set(f"key:{i}", i)
    assert r.dbsize() >= 300  # it may count keys that expired in earlier tests
    assert len(r.keys("key:*")) == 300
    assert r.exists("key:1", "key:2", "nope") == 2
    assert r.type("key:1") == "string"
    assert r.type("nope") == "none"
    assert r.rename("key:1", "renamed") is True
    assert r.expire("renamed", 100) is True
    assert r.ttl("renamed") == 100
    assert r.persist("renamed") is True
    assert set(r.keys("key:10?")) == {f"key:10{i}" for i in range(10)}
    assert set(r.scan_iter(match="key:*", count=25)) == {f"key:{i}" for i in range(300) if i != 1}
    assert r.delete("key:2", "key:3", "nope") == 2
    assert r.randomkey() is not None
    assert r.expire("key:4", -1) is True
    assert r.exists("key:4") == 0


def test_expiry(r):
    r.set("short", "v", px=30)
    time.sleep(0.08)
    assert r.get("short") is None
    assert r.ttl("short") == -2


def test_errors_raise_and_the_connection_goes_on(r):
    r.set("text", "abc")
    with pytest.raises(redis.exceptions.ResponseError, match="^value is not an integer or out of range$"):
        r.incr("text")
    with pytest.raises(redis.exceptions.ResponseError, match="^value is not a valid float$"):
        r.incrbyfloat("text", 1)
    with pytest.raises(redis.exceptions.ResponseError, match="^no such key$"):
        r.rename("nope", "x")
    with pytest.raises(redis.exceptions.ResponseError, match="^unknown command 'NOSUCH'"):
        r.execute_command("NOSUCH", "a")
    with pytest.raises(redis.exceptions.ResponseError, match="^wrong number of arguments for 'get' command$"):
        r.execute_command("GET")
    assert r.ping() is True
    assert r.get("text") == "abc"


def test_pipeline_without_transaction(r):
    with r.pipeline(transaction=False) as p:
        for i in range(1000):
            p.set(f"p:{i}", f"v{i}")
            p.get(f"p:{i}")
            p.incr("p:count")
        p.incr("p:0")  # fails: not an integer
        p.get("p:999")
        results = p.execute(raise_on_error=False)
    for i in range(1000):
        assert results[3 * i] is True
        assert results[3 * i + 1] == f"v{i}"
        assert results[3 * i + 2] == i + 1
    assert isinstance(results[3000], redis.exceptions.ResponseError)
    assert results[3001] == "v999"


def test_pipeline_is_a_transaction_by_default(r):
    with r.pipeline() as p:
        for i in range(200):
            p.set(f"t:{i}", i)
        p.incr("t:count")
        p.get("t:199")
        results = p.execute()
    assert results[:200] == [True] * 200
    assert results[200] == 1
    assert results[201] == "199"
    # A command failing inside EXEC raises, and the others were applied.
    with r.pipeline() as p:
        p.set("t:text", "x")
        p.incr("t:text")
        p.set("t:after", "y")
        with pytest.raises(redis.exceptions.ResponseError):
            p.execute()
    assert r.get("t:after") == "y"


def test_watch_and_optimistic_retry(r):
    r.set("balance", 100)

    def withdraw(pipe):
        current = int(pipe.get("balance"))
        pipe.multi()
        pipe.set("balance", current - 10)

    # transaction() watches, reads, queues and retries until EXEC succeeds.
    r.transaction(withdraw, "balance")
    assert r.get("balance") == "90"
    # A write between WATCH and EXEC makes EXEC fail with WatchError.
    other = redis.Redis(host="127.0.0.1", port=PORT, decode_responses=True, socket_timeout=10)
    with r.pipeline() as p:
        p.watch("balance")
        p.multi()
        p.set("balance", 0)
        other.set("balance", 5)
        with pytest.raises(redis.exceptions.WatchError):
            p.execute()
    other.close()
    assert r.get("balance") == "5"


def test_lock_acquires_extends_and_releases(r):
    # redis-py's Lock releases and extends with Lua scripts (EVALSHA, loading them on NOSCRIPT).
    lock = r.lock("resource", timeout=5)
    assert lock.acquire(blocking=False)
    assert not r.lock("resource", timeout=5).acquire(blocking=False)
    assert lock.extend(10)
    assert 5 < r.pttl("resource") / 1000 <= 15
    lock.release()
    assert r.get("resource") is None
    # The release script checks the token: a lock somebody else now holds is not released.
    other = r.lock("resource2", timeout=5)
    assert other.acquire(blocking=False)
    r.set("resource2", "somebody else")
    with pytest.raises(redis.exceptions.LockNotOwnedError):
        other.release()
    assert r.get("resource2") == "somebody else"
    with r.lock("resource", timeout=5, blocking_timeout=1):
        assert r.exists("resource") == 1
    assert r.exists("resource") == 0


def test_registered_script(r):
    add = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    assert add(keys=["total"], args=[5]) == 5
    r.script_flush()
    assert add(keys=["total"], args=[2]) == 7  # NOSCRIPT, then loaded again


def test_binary_values(raw):
    every = bytes(range(256))
    assert raw.set(every, every) is True
    assert raw.get(every) == every
    large = os.urandom(1 << 20)
    raw.set(b"large", large)
    assert raw.get(b"large") == large


def test_server_commands(r):
    r.set("a", "1")
    assert r.config_get("maxmemory") == {"maxmemory": "0"}
    info = r.info()
    assert "redis_version" in info
    assert info["db0"]["keys"] == r.dbsize()  # both may count keys that expired in earlier tests
    seconds, micros = r.time()
    assert abs(seconds - time.time()) < 5
    assert 0 <= micros < 1_000_000
    assert r.echo("hello") == "hello"
    assert r.flushdb() is True
    assert r.keys("*") == []


def _next_message(p):
    """The next pub/sub message or confirmation, waiting up to 5 s."""
    deadline = time.time() + 5
    while time.time() < deadline:
        m = p.get_message(timeout=0.5)
        if m is not None:
            return m
    raise AssertionError("no pub/sub message within 5 s")


def test_pubsub(r):
    p = r.pubsub()
    p.subscribe("news")
    p.psubscribe("ev.*")
    assert [_next_message(p)["type"] for _ in range(2)] == ["subscribe", "psubscribe"]
    assert r.publish("news", "hello") == 1
    assert r.publish("ev.click", "x") == 1
    assert r.publish("nobody", "y") == 0
    m = _next_message(p)
    assert (m["type"], m["channel"], m["data"]) == ("message", "news", "hello")
    m = _next_message(p)
    assert (m["type"], m["pattern"], m["channel"], m["data"]) == ("pmessage", "ev.*", "ev.click", "x")
    assert r.pubsub_channels() == ["news"]
    assert r.pubsub_numsub("news", "none") == [("news", 1), ("none", 0)]
    assert r.pubsub_numpat() == 1
    p.unsubscribe()
    p.punsubscribe()
    assert sorted(_next_message(p)["type"] for _ in range(2)) == ["punsubscribe", "unsubscribe"]
    assert r.publish("news", "gone") == 0
    p.close()


def test_pubsub_worker_thread(r):
    got = []
    p = r.pubsub(ignore_subscribe_messages=True)
    p.subscribe(**{"jobs": lambda m: got.append(m["data"])})
    worker = p.run_in_thread(sleep_time=0.05, daemon=True)
    try:
        deadline = time.time() + 5
        while r.pubsub_numsub("jobs")[0][1] == 0 and time.time() < deadline:
            time.sleep(0.02)
        for i in range(100):
            r.publish("jobs", str(i))
        while len(got) < 100 and time.time() < deadline:
            time.sleep(0.02)
        assert got == [str(i) for i in range(100)]
    finally:
        worker.stop()
        worker.join(timeout=5)  # before the close, so the worker never reads a closed socket
        p.close()
