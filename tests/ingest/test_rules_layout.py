"""The rule extractor is grouped by topic: each topic module holds its patterns
beside the handlers that read them, and the registry runs every topic's rules."""

from __future__ import annotations

import importlib
import pkgutil

import graphmem.ingest.rules as rules_package
from graphmem.ingest.rules import extractor
from graphmem.ingest.rules.drafts import Rule

CORE = {"drafts", "entities", "extractor", "grammar", "intervals", "text", "timing"}


def test_every_topic_module_is_registered_and_every_core_module_is_not():
    found = {m.name for m in pkgutil.iter_modules(rules_package.__path__)}
    topics = {t.__name__.rsplit(".", 1)[1] for t in extractor.TOPICS}
    assert topics == found - CORE
    assert {"residence", "work", "study", "family", "pets", "health", "preferences"} <= topics


def test_a_topic_holds_its_own_patterns_and_handlers():
    for topic in extractor.TOPICS:
        own_objects = {id(v) for v in vars(topic).values()}
        for rule in topic.RULES:
            assert isinstance(rule, Rule)
            assert rule.handler.__module__ == topic.__name__, (topic.__name__, rule.handler)
            pattern_here = id(rule.trigger) in own_objects or any(
                isinstance(v, tuple) and rule.trigger in v for v in vars(topic).values())
            assert pattern_here, (topic.__name__, rule.trigger.pattern.pattern[:60])


def test_the_registry_is_every_topic_s_rules_in_topic_order():
    assert extractor.HANDLERS == tuple(r for t in extractor.TOPICS for r in t.RULES)
    assert len(extractor.HANDLERS) == len({id(r.trigger) for r in extractor.HANDLERS})


def test_the_package_imports_from_an_installed_name():
    for name in ("graphmem.ingest.rules.residence", "graphmem.ingest.rules.pets"):
        assert importlib.import_module(name).RULES
