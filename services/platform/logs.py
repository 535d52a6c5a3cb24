"""Structured JSON logs, one object a line, with ids bound per task.

Ids (service, instance, game, correlation) are bound with
``structlog.contextvars.bind_contextvars`` so every line written while handling
one message carries them without passing a logger around; a line written inside
a trace's span carries its ``trace_id`` and ``span_id`` (``tracing.add_ids``).
"""

from __future__ import annotations

import logging
import sys

import structlog

from services.platform import tracing

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR}


def configure(service: str, instance_id: str, level: str = "info") -> None:
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            tracing.add_ids,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level, logging.INFO)),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stdout),
        # Once per process, before its first line: each logger builds its bound logger
        # once instead of on every call (a few microseconds per line, debug ones too).
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(service=service, instance=instance_id)
    # Libraries that use stdlib logging (uvicorn, asyncpg) go to stderr at warning and up.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def get(name: str = "spades") -> structlog.stdlib.BoundLogger:
    return structlog.get_logger(name)
