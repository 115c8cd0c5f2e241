"""A minimal JSON Schema validator for the keywords `protocol.schema` writes: what a test holds a real state to."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
                          "array": list, "object": dict}


def problems(schema: dict[str, Any], value: Any, root: dict[str, Any] | None = None, where: str = "$") -> list[str]:
    """Every place `value` breaks `schema` (a JSON path and what is wrong); [] when it holds."""
    root = schema if root is None else root
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return problems(root["$defs"][name], value, root, where)
    if "anyOf" in schema:
        tried = [problems(option, value, root, where) for option in schema["anyOf"]]
        if all(tried):
            return [f"{where}: matches none of {len(tried)} types: " + " | ".join(p[0] for p in tried)]
        return []
    if "const" in schema and value != schema["const"]:
        return [f"{where}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} is not one of {schema['enum']}"]
    kind = schema.get("type")
    if kind is not None:
        expected = _TYPES[kind]
        if not isinstance(value, expected) or (isinstance(value, bool) and kind in ("integer", "number")):
            return [f"{where}: {type(value).__name__} {value!r:.60} is not {kind}"]
    found: list[str] = []
    if kind == "array":
        for i, item in enumerate(value):
            found += problems(schema["items"], item, root, f"{where}[{i}]")
    if kind == "object":
        properties = schema.get("properties", {})
        found += [f"{where}: {key!r} is missing" for key in schema.get("required", ()) if key not in value]
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                found += problems(properties[key], item, root, f"{where}.{key}")
            elif extra is False:
                found.append(f"{where}: {key!r} is not a declared key")
            elif isinstance(extra, dict):
                found += problems(extra, item, root, f"{where}.{key}")
    return found
