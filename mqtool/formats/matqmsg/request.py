"""A MATQMSG message selection template from what a user gives: a request (a ``decode
matqmsg --json`` line or an object of the template's field names, as a mapping or as
JSON text) with values on top, every unusable value and every broken rule refused at once
(IBM i, MATQMSG instruction, message selection template and its exceptions)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mqtool.errors import BuildError, InputError
from mqtool.formats.matqmsg.build import (
    SelectionRefusedError,
    build_selection,
    normalise_relation,
    selection_from_json,
    selection_request,
)
from mqtool.formats.matqmsg.layout import FORMAT


class RefusalsError(BuildError):
    """Every refusal of one request, one line each (``str``), in the order found."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__(FORMAT, "", "refused")
        self.args = ("\n".join(lines),)

    def __str__(self) -> str:
        return "\n".join(self.lines)


def build(request: Mapping[str, Any] | str = "", /, *, overrides: Mapping[str, Any] | None = None,
          source: str = "", queue_key_size: int | None = None,
          codepage: str | None = "cp037") -> bytes:
    """The selection template of ``request`` (JSON text read from ``source``, or a
    mapping) with ``overrides`` on top. Every unusable value, then every rule the machine
    checks, is refused at once (``RefusalsError``); a request with no selection type is
    refused by name."""
    args, refused = _arguments(request, source)
    args.update({k: v for k, v in (overrides or {}).items() if v is not None})
    refused += _value_refusals(args)
    if refused:
        raise RefusalsError([str(e) for e in refused])
    if "selection_type" not in args:
        raise BuildError(FORMAT, "selection_type", "no selection type: give all, first, last or "
                                                   "keyed")
    try:
        return build_selection(**args, queue_key_size=queue_key_size, codepage=codepage)
    except SelectionRefusedError as e:
        raise RefusalsError([f"{FORMAT}: refused: {v.path.removeprefix('selection.')}: "
                             f"{v.describe()}" for v in e.violations]) from None


def _arguments(request: Mapping[str, Any] | str,
               source: str) -> tuple[dict[str, Any], list[BuildError]]:
    """The builder arguments of a request, or (when a value is unusable) every unusable
    value: each field is tried on its own."""
    if isinstance(request, str):
        if not request.strip():
            if source:
                raise InputError(f"{source}: the request file is empty")
            return {}, []
        try:
            return selection_request(request, source), []
        except BuildError as first:
            return _field_by_field(json.loads(request.strip().splitlines()[0]), first)
    try:
        return selection_from_json(request), []
    except BuildError as first:
        return _field_by_field(request, first)


def _field_by_field(obj: Any, first: BuildError) -> tuple[dict[str, Any], list[BuildError]]:
    fields: Any = obj
    at: int | None = None  # the SELECTION element the fields are in, if any
    elements = obj.get("elements") if isinstance(obj, Mapping) else None
    for i, el in enumerate(elements if isinstance(elements, list) else ()):
        if isinstance(el, Mapping) and el.get("type") == "SELECTION":
            fields, at = el.get("fields"), i
            break

    def wrap(f: dict[str, Any]) -> Any:
        if at is None:
            return f
        return {"elements": [*[{}] * at, {"type": "SELECTION", "fields": f}]}

    if not isinstance(fields, Mapping):
        return {}, [first]
    args: dict[str, Any] = {}
    errors: list[BuildError] = []
    for name, value in fields.items():
        try:
            args.update(selection_from_json(wrap({name: value})))
        except BuildError as e:
            errors.append(e)
    return args, errors or [first]


def _value_refusals(args: Mapping[str, Any]) -> list[BuildError]:
    """Selection type, relationship and mode values the builder cannot use (each tried on
    its own, so that all of them are reported; the machine's rules are checked after)."""
    probes: dict[str, Callable[[Any], object]] = {
        "selection_type": lambda v: build_selection(selection_type=v),
        "key_relationship": normalise_relation,
        "mode": lambda v: build_selection(mode=v),
    }
    errors = []
    for name, probe in probes.items():
        if name in args:
            try:
                probe(args[name])
            except SelectionRefusedError:
                pass  # a rule, not a value: reported with the others when building
            except BuildError as e:
                errors.append(e)
    return errors
