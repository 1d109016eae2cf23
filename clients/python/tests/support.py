"""Shared by the tests: the package on sys.path, the servers from
clients/with-server.sh, and a validator of answers against the server's
OpenAPI document (strict about fields the document does not describe)."""

import json
import os
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
REPO = HERE.parents[2]
OPENAPI = json.loads((REPO / "server" / "openapi.json").read_text(encoding="utf-8"))

# Fields the server sends or takes that the OpenAPI document does not
# describe yet, as "Schema.field". Anything else undocumented fails.
KNOWN_GAPS = set()


def env(name):
    v = os.environ.get(name)
    if not v:
        raise unittest.SkipTest(f"{name} is not set: run the tests with clients/with-server.sh")
    return v


def resolve(ref):
    node = OPENAPI
    for part in ref.lstrip("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def named(name):
    return flatten(resolve(f"#/components/schemas/{name}"))


def route_schema(method, path, status=None):
    op = OPENAPI["paths"][path][method.lower()]
    content = op["requestBody"]["content"] if status is None else op["responses"][str(status)]["content"]
    return content["application/json"]["schema"]


def flatten(schema):
    if "$ref" in schema:
        return flatten(resolve(schema["$ref"]))
    if "allOf" not in schema:
        return schema
    out = {"type": "object", "properties": {}, "required": []}
    for part in schema["allOf"]:
        p = flatten(part)
        out["properties"].update(p.get("properties", {}))
        out["required"].extend(p.get("required", []))
    return out


def _type_ok(t, v):
    return {
        "string": lambda: isinstance(v, str),
        "integer": lambda: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda: isinstance(v, bool),
        "array": lambda: isinstance(v, list),
        "object": lambda: isinstance(v, dict),
        "null": lambda: v is None,
    }.get(t, lambda: True)()


def validate(value, schema, where="$", name=""):
    """The violations of value against schema, as strings."""
    out = []
    if "$ref" in schema:
        return validate(value, resolve(schema["$ref"]), where, schema["$ref"].split("/")[-1])
    if "allOf" in schema:
        return validate(value, flatten(schema), where, name)
    if value is None and schema.get("type") != "null":
        return out
    t = schema.get("type")
    if t and not _type_ok(t, value):
        return [f"{where}: want {t}, got {value!r}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if t == "array" and "items" in schema:
        for i, x in enumerate(value):
            out += validate(x, schema["items"], f"{where}[{i}]")
    if t == "object" or "properties" in schema:
        props = schema.get("properties", {})
        for r in schema.get("required", []):
            if value.get(r) is None:
                out.append(f"{where}: required {r} is missing")
        for k, v in value.items():
            if k in props:
                out += validate(v, props[k], f"{where}.{k}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += validate(v, schema["additionalProperties"], f"{where}.{k}")
            elif f"{name}.{k}" not in KNOWN_GAPS:
                out.append(f"{where}: {k} is not in the OpenAPI schema {name}".rstrip())
    return out
