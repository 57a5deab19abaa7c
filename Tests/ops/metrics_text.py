"""A small parser for the Prometheus text format, enough to read back our own scrapes."""
import re

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, frozenset(labels.items())): value}"""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"unparsable sample line: {line!r}"
        labels = frozenset(LABEL.findall(m.group(3) or ""))
        samples[(m.group(1), labels)] = float(m.group(4))
    return samples


def value(samples, name, **labels):
    key = (name, frozenset(labels.items()))
    assert key in samples, f"no sample {name}{labels}"
    return samples[key]
