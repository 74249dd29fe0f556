"""config: the mode a task carries to another process, and putting the environment back after it."""

from __future__ import annotations

import os

import pytest

from kernel_workbook import config
from kernel_workbook.errors import WorkbookParameterError


def test_a_task_carries_the_mode_and_the_environment_is_put_back(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "slides")
    monkeypatch.delenv("KWB_TEST_UNSET", raising=False)
    env = config.task_env()
    assert env == {"WORKBOOK_MODE": "slides"}
    monkeypatch.setenv("WORKBOOK_MODE", "ci")  # a worker started in another mode
    with config.in_env({**env, "KWB_TEST_UNSET": "1"}):
        assert config.mode().name == "slides" and not config.mode().small
        assert os.environ["KWB_TEST_UNSET"] == "1"
    assert config.mode().name == "ci"
    assert "KWB_TEST_UNSET" not in os.environ
    with pytest.raises(RuntimeError), config.in_env(env):  # put back when the task fails too
        raise RuntimeError("a model's error")
    assert config.mode().name == "ci"
    with config.in_env(None):
        assert config.mode().name == "ci"


def test_an_unknown_mode_is_an_error_naming_the_variable(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "stage")
    with pytest.raises(WorkbookParameterError, match="WORKBOOK_MODE"):
        config.mode()
