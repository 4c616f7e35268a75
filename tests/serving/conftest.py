"""Fixtures of the serving tests (helpers live in live_server.py)."""

from __future__ import annotations

import pytest
from live_server import ScriptedAgent, serve, settings_with


@pytest.fixture
def scripted_server():
    with serve(settings_with(), ScriptedAgent) as srv:
        yield srv
