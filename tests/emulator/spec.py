"""Discord's published OpenAPI description, used to hold the emulator to what real Discord accepts and answers.

The document is Discord's own ``discord/discord-api-spec`` (``specs/openapi.json``, OpenAPI 3.1, MIT), kept
*outside* the repository at ``<repo>/../shared/discord-api/openapi.json`` (override with the environment variable
``DISCORD_OPENAPI``); it is read from there at run time, never copied in.

Usage::

    spec = load()                                        # parsed once, cached
    op = spec.operation('POST', '/channels/123/messages')  # path after /api/v10; None if undocumented
    tree = spec.check_request(op, body, query)           # ErrorTree (empty when Discord would accept it)
    problems = spec.check_reply(op, 200, body)           # list of str (empty when the reply is as documented)
    problems = spec.check_gateway('MESSAGE_CREATE', data)  # payload objects checked against component schemas

Validation is JSON Schema Draft 2020-12 (``jsonschema``) with a ``referencing.Registry`` holding the whole
document, so ``#/components/schemas/...`` references resolve; validators are built once per schema location.

``SPEC_FIXES`` is the short, written allow-list of the spec's own mistakes: each entry replaces one schema
location in memory, with the reason. It must never be used to excuse an emulator bug.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import os
import re
import time
import urllib.parse
import warnings
import weakref
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from aiohttp import web
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from .errors import ErrorTree

SPEC_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "discord-api" / "openapi.json"
BASE_URI = "urn:discord:openapi"
SPEC_OP: Any = web.RequestKey("spec_op", object) if hasattr(web, "RequestKey") else "spec_op"


@dataclasses.dataclass(frozen=True)
class SpecFix:
    """One correction of the published spec: ``pointer`` (JSON pointer into the document) is replaced by
    ``schema``; ``reason`` says why the spec is wrong (what Discord really sends or accepts)."""

    pointer: str
    schema: Any
    reason: str
    side: str = "both"  # 'request' (request bodies and parameters), 'reply' (replies, gateway) or 'both'


SPEC_FIXES: Tuple[SpecFix, ...] = (
    SpecFix(
        pointer="/components/schemas/InnerErrors/properties/_errors/items",
        schema={
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        },
        reason="InnerErrors._errors[].code is typed as an integer (it reuses Error, whose top-level code is the "
        'numeric 50035), but Discord sends string codes there, e.g. "BASE_TYPE_MAX_LENGTH" '
        "(named as a known mistake in the spec copy's README).",
    ),
    SpecFix(
        pointer="/components/schemas/RatelimitedResponse",
        schema={
            "type": "object",
            "description": "Ratelimit error object returned by the Discord API",
            "properties": {
                "message": {"type": "string"},
                "code": {"type": "integer"},
                "retry_after": {"type": "number"},
                "global": {"type": "boolean"},
            },
            "required": ["message", "retry_after", "global"],
        },
        reason="a 429 body is typed as an Error (code required), but Discord's own Rate Limits page shows it "
        'without one: {"message": "You are being rate limited.", "retry_after": 64.57, "global": false}.',
    ),
    SpecFix(
        pointer="/components/schemas/SnowflakeType",
        schema={
            "anyOf": [
                {"type": "string", "pattern": "^(0|[1-9][0-9]*)$", "format": "snowflake"},
                {"type": "integer", "minimum": 0},
            ]
        },
        reason="in request bodies Discord reads a snowflake given as a JSON integer as well as a string "
        '(discord.py sends "recipient_id", "message_reference.message_id" and a new upload\'s '
        '"attachments[].id" index as integers, and Discord accepts them); replies still carry strings only.',
        side="request",
    ),
)


@dataclasses.dataclass
class Operation:
    """One documented operation: ``method`` (upper case), ``template`` (e.g. ``/channels/{channel_id}``),
    ``pointer`` (JSON pointer of the operation object) and the operation object ``op`` itself."""

    method: str
    template: str
    pointer: str
    op: Dict[str, Any]
    params: Dict[str, Dict[str, Any]]  # name -> parameter object (path-level and operation-level, 'in' kept)
    path_values: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def operation_id(self) -> str:
        return str(self.op.get("operationId", f"{self.method} {self.template}"))


def _locate(doc: Any, pointer: str) -> Tuple[Any, str]:
    """(parent node, key) of the JSON pointer ``pointer`` (unescaped) in ``doc``."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("/").split("/")]
    node: Any = doc
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    return node, parts[-1]


def _escape(segment: str) -> str:
    return urllib.parse.quote(segment.replace("~", "~0").replace("/", "~1"), safe="~@")


def _close_objects(doc: Dict[str, Any]) -> int:
    """Make the reply side strict: every object schema with ``properties`` (and no rule of its own for other
    properties) gets ``unevaluatedProperties: false``, so a reply or payload carrying a field the spec doesn't
    describe (a bot user's ``email`` in a message's author, a thread's ``permission_overwrites``) is a violation,
    not silently accepted. Schemas used as ``allOf`` parts are left open (their siblings add properties; the
    ``allOf`` holder is closed instead). Returns how many schemas were closed. Requests stay open: Discord
    ignores fields it doesn't know in a request body."""
    parts_by_ref, parts_by_id = set(), set()

    def find_parts(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("allOf"), list):
                for part in node["allOf"]:
                    if isinstance(part, dict) and "$ref" in part:
                        parts_by_ref.add(part["$ref"][1:])
                    else:
                        parts_by_id.add(id(part))
            for v in node.values():
                find_parts(v)
        elif isinstance(node, list):
            for v in node:
                find_parts(v)

    closed = 0

    def close(node: Any, pointer: str) -> None:
        nonlocal closed
        if isinstance(node, dict):
            if (
                isinstance(node.get("properties"), dict)
                and "additionalProperties" not in node
                and "unevaluatedProperties" not in node
                and id(node) not in parts_by_id
                and pointer not in parts_by_ref
            ):
                node["unevaluatedProperties"] = False
                closed += 1
            for k, v in list(node.items()):
                if k != "properties" or not isinstance(v, dict):
                    close(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}")
                else:  # a property map: its values are schemas, its keys are names
                    for name, sub in v.items():
                        close(sub, f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                close(v, f"{pointer}/{i}")

    find_parts(doc)
    close(doc, "")
    return closed


class Spec:
    """The loaded document with an operation index and a cache of validators (one per schema location).

    ``strict`` (default) closes the reply side's object schemas (see ``_close_objects``)."""

    def __init__(self, doc: Dict[str, Any], fixes: Iterable[SpecFix] = SPEC_FIXES, *, strict: bool = True) -> None:
        self.fixes = tuple(fixes)
        self.request_doc = copy.deepcopy(doc)
        self.doc = doc
        for fix in self.fixes:
            for side, target in (("reply", self.doc), ("request", self.request_doc)):
                if fix.side in (side, "both"):
                    parent, key = _locate(target, fix.pointer)
                    parent[key] = fix.schema
        self.strict = strict
        if strict:
            _close_objects(self.doc)
        self.registry: Registry = Registry().with_resource(BASE_URI, DRAFT202012.create_resource(self.doc))
        self.request_registry: Registry = Registry().with_resource(
            BASE_URI, DRAFT202012.create_resource(self.request_doc)
        )
        self._validators: Dict[Tuple[str, bool], Draft202012Validator] = {}
        self._tables: Dict[int, Dict[Any, int]] = {}
        self._consts: Dict[int, Any] = {}
        self._valid: set = set()  # (validator id, digest of the JSON text) of large instances found valid
        self._cls = validators.extend(
            Draft202012Validator, {"oneOf": self._union("oneOf"), "anyOf": self._union("anyOf")}
        )
        self._ops: List[Tuple[re.Pattern, int, str, Dict[str, Any]]] = []
        for template, item in doc["paths"].items():
            regex = re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)))
            literal = len(re.sub(r"\{\w+\}", "", template))
            self._ops.append((regex, literal, template, item))
        # the most literal template wins (…/messages/@original before …/messages/{message_id})
        self._ops.sort(key=lambda t: -t[1])

    def _locate(self, pointer: str) -> Tuple[Any, str]:
        return _locate(self.doc, pointer)

    def resolve(self, node: Any) -> Any:
        """``node`` with a top-level ``$ref`` (``#/components/...``) followed."""
        while isinstance(node, dict) and "$ref" in node:
            parent, key = self._locate(node["$ref"][1:])
            node = parent[key]
        return node

    # -- validators ----------------------------------------------------------------------------
    def validator(self, pointer: str, request: bool = False) -> Draft202012Validator:
        """The (cached) validator of the schema at JSON pointer ``pointer`` of the document, as the spec (with
        ``SPEC_FIXES``) reads for a request (``request=True``) or for a reply/gateway payload."""
        v = self._validators.get((pointer, request))
        if v is None:
            v = self._validators[(pointer, request)] = self._cls(
                {"$ref": f"{BASE_URI}#{pointer}"}, registry=self.request_registry if request else self.registry
            )
        return v

    def schema_validator(self, name: str) -> Draft202012Validator:
        """The validator of ``#/components/schemas/<name>``; KeyError when the spec has no such schema."""
        if name not in self.doc["components"]["schemas"]:
            raise KeyError(f"the spec has no component schema {name!r}")
        return self.validator(f"/components/schemas/{_escape(name)}")

    def _union(self, keyword: str) -> Any:
        """``oneOf``/``anyOf`` that, for an object whose ``type`` names exactly one branch (the spec's
        components, callbacks and channels are told apart by ``type``), checks only that branch: the others
        fail on ``type`` anyway, so the outcome is the same, many times faster (and the errors name the
        branch meant). Anything else is checked as the keyword says."""
        plain = Draft202012Validator.VALIDATORS[keyword]

        def check(validator: Any, branches: Any, instance: Any, schema: Any) -> Iterable[ValidationError]:
            if isinstance(branches, list) and not isinstance(instance, (dict, list)):
                consts = self._consts.get(id(branches), False)
                if consts is False:
                    consts = self._consts[id(branches)] = _constants(branches)
                if consts is not None and (type(instance), instance) in consts:
                    return  # one of the spec's enums (a oneOf of distinct constants), and the value is one of them
            value = instance.get("type") if isinstance(instance, dict) else None
            if isinstance(value, (int, str)) and not isinstance(value, bool) and isinstance(branches, list):
                table = self._tables.get(id(branches))
                if table is None:
                    table = self._tables[id(branches)] = self._discriminators(branches)
                index = table.get(value)
                if index is not None:
                    yield from validator.descend(instance, branches[index], schema_path=index)
                    return
            yield from plain(validator, branches, instance, schema)

        return check

    def _discriminators(self, branches: List[Any]) -> Dict[Any, int]:
        """``type`` value -> index of the only branch that allows it (values allowed by several: left out)."""
        seen: Dict[Any, List[int]] = {}
        for i, branch in enumerate(branches):
            node = self.resolve(branch)
            prop = node.get("properties", {}).get("type") if isinstance(node, dict) else None
            prop = self.resolve(prop) if prop is not None else None
            values = (
                prop.get("enum")
                if isinstance(prop, dict) and "enum" in prop
                else ([prop["const"]] if isinstance(prop, dict) and "const" in prop else None)
            )
            if not values or not isinstance(node, dict) or "type" not in node.get("required", ()):
                return {}  # a branch that doesn't pin its type: no shortcut for this union
            for v in values:
                seen.setdefault(v, []).append(i)
        return {v: idx[0] for v, idx in seen.items() if len(idx) == 1 and isinstance(v, (int, str))}

    # -- operations ----------------------------------------------------------------------------
    def operation(self, method: str, path: str) -> Optional[Operation]:
        """The documented operation for ``method`` and ``path`` (the part after ``/api/v10``), found by the
        spec's path templates; None when the spec documents no such operation."""
        m = method.lower()
        for regex, _, template, item in self._ops:
            match = regex.fullmatch(path)
            if match is None or m not in item:
                continue
            params = {p["name"]: p for p in (self.resolve(x) for x in item.get("parameters", []))}
            params.update({p["name"]: p for p in (self.resolve(x) for x in item[m].get("parameters", []))})
            return Operation(
                method.upper(), template, f"/paths/{_escape(template)}/{m}", item[m], params, match.groupdict()
            )
        return None

    def check_request(self, op: Operation, body: Any, query: Mapping[str, str]) -> ErrorTree:
        """Path values, query parameters and the body of a request, as Discord checks them: an ErrorTree of
        Discord's "Invalid Form Body" errors (empty when the spec accepts the request). ``body`` is the
        parsed JSON (or a multipart request's ``payload_json``); None means no body."""
        tree = ErrorTree()
        values = [("path", k, v) for k, v in op.path_values.items()] + [("query", k, v) for k, v in query.items()]
        for where, name, value in values:
            param = op.params.get(name)
            if param is None or param.get("in") != where:
                continue  # a parameter the spec doesn't name: Discord ignores it
            schema = self.resolve(param.get("schema", {}))
            converted = _convert(value, schema)
            if converted is _BAD:
                tree.add((name,), "NUMBER_TYPE_COERCE", f'Value "{value}" is not {_type_word(schema)}.')
                continue
            for err in self._param_validator(op, name).iter_errors(converted):
                _add_error(tree, (name,), err)
        rb = op.op.get("requestBody")
        if rb is not None:
            content = rb.get("content", {})
            mtype = "application/json" if "application/json" in content else next(iter(content), None)
            if mtype is not None and body is not None:
                v = self.validator(f"{op.pointer}/requestBody/content/{_escape(mtype)}/schema", request=True)
                for err in self._errors(v, body):
                    _add_error(tree, (), err)
        return tree

    def _param_validator(self, op: Operation, name: str) -> Draft202012Validator:
        """A validator for one parameter's schema, addressed by where the parameter object lives."""
        key = (f"{op.pointer}#param:{name}", True)
        v = self._validators.get(key)
        if v is None:
            v = self._validators[key] = self.validator(self._param_pointer(op, name) + "/schema", request=True)
        return v

    def _param_pointer(self, op: Operation, name: str) -> str:
        item_pointer = f"/paths/{_escape(op.template)}"
        item = self.doc["paths"][op.template]
        for base, plist in ((op.pointer, op.op.get("parameters", [])), (item_pointer, item.get("parameters", []))):
            for i, p in enumerate(plist):
                if "$ref" in p:
                    if self.resolve(p)["name"] == name:
                        return p["$ref"][1:]
                elif p.get("name") == name:
                    return f"{base}/parameters/{i}"
        raise KeyError(name)

    def reply_pointer(self, op: Operation, status: int) -> Tuple[Optional[str], Optional[str]]:
        """(JSON pointer of the documented body schema or None, problem or None) for a reply with ``status``."""
        responses = op.op.get("responses", {})
        key = next((k for k in (str(status), f"{str(status)[0]}XX", "default") if k in responses), None)
        if key is None:
            return None, f"status {status} is not documented (documented: {', '.join(sorted(responses))})"
        resp = responses[key]
        pointer = f"{op.pointer}/responses/{_escape(key)}"
        if "$ref" in resp:
            pointer = resp["$ref"][1:]
            resp = self.resolve(resp)
        content = resp.get("content") or {}
        if "application/json" not in content:
            return None, None
        return f"{pointer}/content/{_escape('application/json')}/schema", None

    def check_reply(self, op: Operation, status: int, body: Any) -> List[str]:
        """Problems (empty when none) of a reply with ``status`` and JSON ``body`` (None: no body)."""
        pointer, problem = self.reply_pointer(op, status)
        if problem:
            return [problem]
        if pointer is None:
            return [] if body is None else [f"status {status} is documented without a body, but one was sent"]
        if body is None:
            return [f"status {status} is documented with a body, but none was sent"]
        return [describe(e) for e in self._errors(self.validator(pointer), body)]

    def check_schema(self, name: str, instance: Any, where: str = "") -> List[str]:
        """Problems of ``instance`` against ``#/components/schemas/<name>``, each prefixed with ``where``."""
        return [f"{where}{describe(e)}" for e in self._errors(self.schema_validator(name), instance)]

    def _errors(self, validator: Draft202012Validator, instance: Any) -> List[ValidationError]:
        """``validator``'s errors for ``instance``. A large instance found valid once is remembered (by its JSON
        text), so the same command list synced again, or the same guild sent again, isn't checked again."""
        key = None
        if isinstance(instance, (dict, list)):
            try:
                text = json.dumps(instance, sort_keys=True)
            except (TypeError, ValueError):
                text = ""
            if len(text) >= 4096:
                key = (id(validator), hashlib.blake2b(text.encode(), digest_size=16).digest())
                if key in self._valid:
                    return []
        errors = list(validator.iter_errors(instance))
        if key is not None and not errors:
            if len(self._valid) >= 256:
                self._valid.clear()
            self._valid.add(key)
        return errors

    def check_gateway(self, event: str, data: Any) -> List[str]:
        """Problems of the payload objects in a gateway dispatch ``event`` with ``data`` (the ``d`` field):
        messages, guilds, channels, threads, members, roles and users, against the spec's component schemas
        of the same name (the spec describes REST, so only these shared objects are checked)."""
        out: List[str] = []
        for name, path, obj in _gateway_objects(event, data):
            out.extend(self.check_schema(name, obj, f"{event} {path} ({name}): "))
        return out


def _constants(branches: List[Any]) -> Optional[set]:
    """{(type, value)} when every branch is just a distinct ``const`` (with a title or description); else None."""
    out = set()
    for b in branches:
        if not isinstance(b, dict) or "const" not in b or set(b) - {"const", "title", "description"}:
            return None
        c = b["const"]
        if isinstance(c, (dict, list)) or (type(c), c) in out:
            return None
        out.add((type(c), c))
    return out


_BAD = object()


def _convert(value: str, schema: Dict[str, Any]) -> Any:
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if "integer" in types:
        try:
            return int(value)
        except ValueError:
            return _BAD
    if "number" in types:
        try:
            return float(value)
        except ValueError:
            return _BAD
    if "boolean" in types:
        low = value.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        return _BAD
    return value


def _type_word(schema: Dict[str, Any]) -> str:
    if schema.get("format") == "snowflake":
        return "snowflake"
    t = schema.get("type")
    return {"integer": "int", "boolean": "boolean", "number": "number"}.get(t if isinstance(t, str) else "", "valid")


def describe(err: ValidationError) -> str:
    """One line for a jsonschema error: where in the instance, what failed, and the schema location."""
    leaf = _leaf(err)
    where = ".".join(str(p) for p in leaf.absolute_path) or "<root>"
    msg = leaf.message if len(leaf.message) <= 240 else leaf.message[:237] + "..."
    return f"{where}: {msg} [{leaf.validator} at {'/'.join(str(p) for p in leaf.absolute_schema_path)[-120:]}]"


def _leaf(err: ValidationError) -> ValidationError:
    """The most telling error inside a oneOf/anyOf failure: the branch whose discriminator (``type``)
    matched, else the branch with the fewest, deepest errors."""
    while err.context:
        if _choices(err) is not None:
            return err
        branches: Dict[Any, List[ValidationError]] = {}
        for e in err.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        plausible = {
            k: v
            for k, v in branches.items()
            if not any(tuple(e.relative_path) == ("type",) or e.validator == "type" and not e.relative_path for e in v)
        }
        pool = plausible or branches
        best = min(pool.values(), key=lambda v: (len(v), -max(len(e.relative_path) for e in v)))
        err = max(best, key=lambda e: len(e.relative_path))
    return err


def _choices(err: ValidationError) -> Optional[List[Any]]:
    """The allowed values when ``err`` is a oneOf/anyOf whose branches are all constants (the spec's enums)."""
    if err.validator not in ("oneOf", "anyOf") or not err.context:
        return None
    if all(e.validator in ("const", "enum") and not e.relative_path for e in err.context):
        out: List[Any] = []
        for e in err.context:
            out.extend(e.validator_value if e.validator == "enum" else [e.validator_value])
        return out
    return None


def _add_error(tree: ErrorTree, prefix: Tuple[Any, ...], err: ValidationError) -> None:
    """Add one jsonschema error to ``tree`` in Discord's words (codes as Discord's "Invalid Form Body")."""
    leaf = _leaf(err)
    path = prefix + tuple(leaf.absolute_path)
    kw, arg, inst = leaf.validator, leaf.validator_value, leaf.instance
    inst = inst if len(str(inst)) <= 64 else f"{str(inst)[:61]}..."  # echoed in messages: keep them short
    if kw == "required":
        missing = next((m for m in arg if not isinstance(inst, dict) or m not in inst), arg[0] if arg else "")
        tree.add(path + (missing,), "BASE_TYPE_REQUIRED", "This field is required")
    elif kw == "maxLength":
        tree.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {arg} or fewer in length.")
    elif kw == "minLength":
        tree.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {arg} or more in length.")
    elif kw == "maxItems":
        tree.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {arg} or fewer in length.")
    elif kw == "minItems":
        tree.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {arg} or more in length.")
    elif kw in ("enum", "const") or _choices(leaf) is not None:
        choices = arg if kw == "enum" else [arg] if kw == "const" else _choices(leaf)
        tree.add(path, "BASE_TYPE_CHOICES", f"Value must be one of {set(choices)!r}.")
    elif kw in ("minimum", "exclusiveMinimum"):
        tree.add(path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {arg}.")
    elif kw in ("maximum", "exclusiveMaximum"):
        tree.add(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {arg}.")
    elif kw == "pattern" and isinstance(leaf.schema, dict) and leaf.schema.get("format") == "snowflake":
        tree.add(path, "NUMBER_TYPE_COERCE", f'Value "{inst}" is not snowflake.')
    elif kw == "type":
        want = arg if isinstance(arg, str) else "/".join(a for a in arg if a != "null")
        if "integer" in want or "number" in want:
            tree.add(path, "NUMBER_TYPE_COERCE", f'Value "{inst}" is not int.')
        elif "array" in want:
            tree.add(path, "BASE_TYPE_ARRAY", "Must be an array." if inst is not None else "This field is required")
        elif "object" in want:
            tree.add(path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        elif "boolean" in want:
            tree.add(path, "BOOLEAN_TYPE_CONVERT", f'Could not interpret "{inst}" as boolean.')
        else:
            tree.add(path, "STRING_TYPE_CONVERT", f'Could not interpret "{inst}" as string.')
    elif kw == "uniqueItems":
        tree.add(path, "BASE_TYPE_DUPLICATE", "Values must be unique.")
    else:
        tree.add(path, "BASE_TYPE_INVALID", leaf.message[:200])


# Fields Discord's gateway documentation adds to the REST objects in these events (Gateway Events pages:
# "Message Create ... extra fields", "Guild Create ... extra fields", "Thread Create", "Guild Member Add",
# "Interaction Object" member with permissions); they are left out before the object is held to its REST schema.
GATEWAY_EXTRAS: Dict[str, Tuple[str, ...]] = {
    "message": ("guild_id", "member"),
    "guild": (
        "joined_at",
        "large",
        "unavailable",
        "member_count",
        "voice_states",
        "members",
        "channels",
        "threads",
        "presences",
        "stage_instances",
        "guild_scheduled_events",
        "soundboard_sounds",
    ),
    "thread_create": ("newly_created",),
    "member_add": ("guild_id",),
    "interaction_member": ("permissions",),
}


def _without(obj: Any, kind: str) -> Any:
    if not isinstance(obj, dict):
        return obj
    drop = GATEWAY_EXTRAS[kind]
    return {k: v for k, v in obj.items() if k not in drop}


def _gateway_objects(event: str, data: Any) -> List[Tuple[str, str, Any]]:
    """(component schema name, where, object) for the payload objects inside one gateway dispatch, each without
    the fields the gateway documentation adds (GATEWAY_EXTRAS)."""
    if not isinstance(data, dict):
        return []
    out: List[Tuple[str, str, Any]] = []

    def channel(where: str, ch: Any) -> None:
        if isinstance(ch, dict):
            out.append(
                (
                    "ThreadResponse"
                    if ch.get("type") in (10, 11, 12)
                    else "PrivateChannelResponse"
                    if ch.get("type") == 1
                    else "GuildChannelResponse",
                    where,
                    ch,
                )
            )

    if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
        out.append(("MessageResponse", "d", _without(data, "message")))
        if isinstance(data.get("member"), dict):
            out.append(("GuildMemberResponse", "d.member", dict(data["member"], user=data.get("author"))))
    elif event in ("GUILD_CREATE", "GUILD_UPDATE") and not data.get("unavailable"):
        out.append(("GuildResponse", "d", _without(data, "guild")))
        for i, m in enumerate(data.get("members") or []):
            out.append(("GuildMemberResponse", f"d.members.{i}", m))
        for i, c in enumerate(data.get("channels") or []):
            channel(f"d.channels.{i}", c)
        for i, c in enumerate(data.get("threads") or []):
            channel(f"d.threads.{i}", c)
    elif event in ("CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE", "THREAD_UPDATE"):
        channel("d", data)
    elif event == "THREAD_CREATE":
        channel("d", _without(data, "thread_create"))
    elif event in ("GUILD_MEMBER_ADD",):
        out.append(("GuildMemberResponse", "d", _without(data, "member_add")))
    elif event in ("GUILD_ROLE_CREATE", "GUILD_ROLE_UPDATE"):
        out.append(("GuildRoleResponse", "d.role", data.get("role")))
    elif event == "READY":
        out.append(("UserPIIResponse", "d.user", data.get("user")))
    elif event == "INTERACTION_CREATE":
        if isinstance(data.get("user"), dict):
            out.append(("UserResponse", "d.user", data["user"]))
        if isinstance(data.get("member"), dict):
            out.append(("GuildMemberResponse", "d.member", _without(data["member"], "interaction_member")))
        channel("d.channel", data.get("channel"))
        if isinstance(data.get("message"), dict):
            out.append(("MessageResponse", "d.message", data["message"]))
    return out


def spec_path() -> Path:
    """Where the spec is read from: ``$DISCORD_OPENAPI`` or ``<repo>/../shared/discord-api/openapi.json``."""
    return Path(os.environ.get("DISCORD_OPENAPI") or SPEC_PATH)


def required() -> bool:
    """Whether a missing spec is an error (CI, where shared/ is always beside the clone) rather than a reason to
    leave the checks out with a warning (a newcomer's fresh clone without shared/)."""
    return bool(os.environ.get("CI")) or bool(os.environ.get("DISCORD_OPENAPI"))


def available() -> bool:
    """Whether the spec file is where :func:`spec_path` says."""
    return spec_path().is_file()


@functools.lru_cache(maxsize=1)
def _warn_missing() -> None:
    warnings.warn(
        f"Discord's OpenAPI spec is not at {spec_path()}: the emulator's spec checks are off (get "
        "specs/openapi.json from discord/discord-api-spec and set DISCORD_OPENAPI to it)",
        stacklevel=3,
    )


@functools.lru_cache(maxsize=1)
def load() -> Spec:
    """The spec, parsed once per process. FileNotFoundError (saying where it was looked for) when missing."""
    path = spec_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"Discord's OpenAPI spec is not at {path}: the tests expect a copy of shared/ "
            f"beside the repository (or set DISCORD_OPENAPI)"
        )
    with open(path, encoding="utf-8") as f:
        return Spec(json.load(f))


@dataclasses.dataclass
class SpecViolation:
    """Something the emulator sent that Discord's spec says it would not: ``kind`` is ``reply`` (a REST reply
    body or status), ``gateway`` (a dispatch payload object) or ``route`` (a route the spec doesn't document);
    ``what`` names the request or event, ``problems`` lists each failure (instance path: message [schema])."""

    kind: str
    what: str
    problems: List[str]
    key: str = ""  # the operation id or event, for grouping

    def __str__(self) -> str:
        more = f" (+{len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return f"{self.what}: " + "; ".join(self.problems[:3]) + more


class Conformance:
    """The emulator's in-line spec checks (``emu.spec``): requests refused as Discord refuses them, replies and
    gateway payloads checked against the spec, with what failed kept in ``violations`` and counts of what was
    checked in ``checked`` (``requests``, ``replies``, ``gateway``) and the time spent in ``seconds`` (per
    operation or event in ``timings``).

    ``enabled=False`` turns every check off (the emulator then only applies its own limits)."""

    def __init__(self, enabled: bool = True) -> None:
        if enabled and not available() and not required():
            _warn_missing()  # a fresh clone without shared/: the emulator's own limits still apply
            enabled = False
        self.enabled = enabled
        self.violations: List[SpecViolation] = []
        self.checked: Dict[str, int] = {"requests": 0, "replies": 0, "gateway": 0}
        self.seconds = 0.0
        self.timings: Dict[str, float] = {}  # seconds spent per checked operation or event
        self.refused = 0  # requests answered 400 50035 because the spec refuses them
        self._spec: Optional[Spec] = load() if enabled else None
        LIVE.add(self)

    @property
    def spec(self) -> Spec:
        if self._spec is None:
            self._spec = load()
        return self._spec

    def _spent(self, key: str, t: float) -> None:
        dt = time.perf_counter() - t
        self.seconds += dt
        self.timings[key] = self.timings.get(key, 0.0) + dt

    def check_request(self, request: Any, path: str, body: Any) -> Optional[ErrorTree]:
        """Check one REST request (``path`` after ``/api/v10``); returns the ErrorTree of Discord's
        "Invalid Form Body" refusal, or None when the spec accepts it (or documents no such operation).
        Remembers the operation on ``request[SPEC_OP]`` for :meth:`check_reply`."""
        if not self.enabled:
            return None
        t = time.perf_counter()
        op = self.spec.operation(request.method, path)
        request[SPEC_OP] = op
        if op is None:
            return None
        self.checked["requests"] += 1
        tree = self.spec.check_request(op, body, request.query)
        self._spent(f"request {op.operation_id}", t)
        if tree:
            self.refused += 1
        return tree or None

    def check_reply(self, request: Any, path: str, status: int, body: Any) -> None:
        """Check one REST reply; injected server errors (5xx) are not checked (the spec doesn't describe them)."""
        if not self.enabled or status >= 500:
            return
        t = time.perf_counter()
        op = request.get(SPEC_OP, False)
        if op is False:
            op = self.spec.operation(request.method, path)
        what = f"{request.method} {path} -> {status}"
        if op is None:
            if status < 400:
                self.violations.append(
                    SpecViolation("route", what, ["the spec documents no such operation"], f"{request.method} {path}")
                )
            return
        self.checked["replies"] += 1
        problems = self.spec.check_reply(op, status, body)
        if problems:
            self.violations.append(
                SpecViolation("reply", f"{what} ({op.operation_id})", problems, f"{op.operation_id} {status}")
            )
        self._spent(f"reply {op.operation_id}", t)

    def check_gateway(self, event: str, data: Any) -> None:
        """Check the payload objects of one gateway dispatch."""
        if not self.enabled:
            return
        t = time.perf_counter()
        self.checked["gateway"] += 1
        problems = self.spec.check_gateway(event, data)
        if problems:
            self.violations.append(SpecViolation("gateway", event, problems, event))
        self._spent(f"gateway {event}", t)

    def report(self, n: int = 8) -> str:
        """The first ``n`` distinct problems (by operation or event), one per line with how often each was met
        (empty when there are none)."""
        seen: Dict[Tuple[str, str], int] = {}
        for v in self.violations:
            for p in v.problems:
                key = (v.key, p)
                seen[key] = seen.get(key, 0) + 1
        lines = [f"{what}: {p}" + (f" (x{c})" if c > 1 else "") for (what, p), c in list(seen.items())[:n]]
        if len(seen) > n:
            lines.append(f"... and {len(seen) - n} more distinct problems ({len(self.violations)} violations)")
        return "\n".join(lines)


# every Conformance alive: tests/conftest.py asserts after each test that those it made recorded no violation
LIVE: "weakref.WeakSet[Conformance]" = weakref.WeakSet()
