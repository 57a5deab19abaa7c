"""Fixtures for the cluster suite: a fresh Redis per test and a factory for instances on it,
all stopped by PID at the end of the test."""
import pytest

from harness.redis import Instance, Redis


@pytest.fixture
def redis():
    server = Redis()
    yield server
    server.stop()


@pytest.fixture
def instances(redis):
    started = []

    def start(*args, count=1):
        made = [Instance(redis.url, "--quiet", *args) for _ in range(count)]
        started.extend(made)
        return made

    yield start
    for instance in started:
        instance.stop()
