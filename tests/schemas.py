"""Validate kgroup's JSON outputs against the JSON Schema files under docs/schemas/."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "schemas"


@lru_cache(maxsize=None)
def _validator(name: str):
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate(name: str, document) -> None:
    """Raise jsonschema.ValidationError when ``document`` does not match docs/schemas/NAME.schema.json."""
    _validator(name).validate(document)
