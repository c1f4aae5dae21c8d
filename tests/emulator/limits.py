"""Discord's documented request limits, checked the way Discord reports them.

Every validator appends to an :class:`ErrorTree` using the paths and error codes Discord uses in
its ``50035 Invalid Form Body`` responses, so the bot under test sees the same exception text it
would get in production.  Sources: the Discord developer documentation (Message / Embed /
Component / Application Command / Interaction Response reference pages).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import regex

from .errors import ErrorTree, Path

# --- messages -------------------------------------------------------------------------------
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
FILES_MAX = 10
# Discord's current default upload limit for bots in unboosted guilds (was 25 MiB until 2024).
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

# --- components -----------------------------------------------------------------------------
ACTION_ROWS_MAX = 5
ROW_WIDTH = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_PLACEHOLDER_MAX = 150
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100
V2_COMPONENTS_MAX = 40
V2_TEXT_TOTAL_MAX = 4000
FLAG_COMPONENTS_V2 = 1 << 15

# --- autocomplete ---------------------------------------------------------------------------
AUTOCOMPLETE_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_STRING_VALUE_MAX = 100

# --- application commands -------------------------------------------------------------------
# Application Command Naming: letters and digits of every script, - and _, Devanagari and Thai (with their vowel
# signs); lowercase where a letter has a lowercase form. (The docs' newer regex also lists "'", which the API
# refuses: discord-api-docs issue 7371.)
COMMAND_NAME_RE = regex.compile(r"^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$")
# The locales Discord's clients use (Reference → Locales): the keys of name_localizations and
# description_localizations, and an interaction's locale and guild_locale.
LOCALES = (
    "id",
    "da",
    "de",
    "en-GB",
    "en-US",
    "es-ES",
    "es-419",
    "fr",
    "hr",
    "it",
    "lt",
    "hu",
    "nl",
    "no",
    "pl",
    "pt-BR",
    "ro",
    "fi",
    "sv-SE",
    "vi",
    "tr",
    "cs",
    "el",
    "bg",
    "ru",
    "uk",
    "hi",
    "th",
    "zh-CN",
    "ja",
    "zh-TW",
    "ko",
)
COMMAND_DESCRIPTION_MAX = 100
COMMAND_OPTIONS_MAX = 25
COMMAND_CHOICES_MAX = 25
COMMAND_TOTAL_CHARS_MAX = 4000
CHAT_INPUT_COMMANDS_MAX = 100
USER_COMMANDS_MAX = 15
MESSAGE_COMMANDS_MAX = 15

# --- modals ---------------------------------------------------------------------------------
MODAL_TITLE_MAX = 45

OPT_SUB_COMMAND = 1
OPT_SUB_COMMAND_GROUP = 2
OPT_STRING = 3
OPT_INTEGER = 4
OPT_BOOLEAN = 5
OPT_USER = 6
OPT_CHANNEL = 7
OPT_ROLE = 8
OPT_MENTIONABLE = 9
OPT_NUMBER = 10
OPT_ATTACHMENT = 11
OPTION_TYPES = set(range(1, 12))


def _max_len(tree: ErrorTree, path: Path, value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        tree.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _bad_len(tree: ErrorTree, path: Path, value: Any, lo: int, hi: int) -> None:
    if not isinstance(value, str) or not (lo <= len(value) <= hi):
        tree.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {lo} and {hi} in length.")


def _list_max(tree: ErrorTree, path: Path, value: Any, limit: int) -> None:
    if isinstance(value, list) and len(value) > limit:
        tree.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ============================================================================================
# Messages
# ============================================================================================


def embed_text_length(embed: Dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    return total


def validate_embeds(tree: ErrorTree, prefix: Path, embeds: Any) -> None:
    path = prefix + ("embeds",)
    if embeds is None:
        return
    if not isinstance(embeds, list):
        tree.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    _list_max(tree, path, embeds, EMBEDS_MAX)
    total = 0
    for i, embed in enumerate(embeds):
        ep = path + (i,)
        if not isinstance(embed, dict):
            tree.add(ep, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        _max_len(tree, ep + ("title",), embed.get("title"), EMBED_TITLE_MAX)
        _max_len(tree, ep + ("description",), embed.get("description"), EMBED_DESCRIPTION_MAX)
        colour = embed.get("color")
        if colour is not None and (not _is_int(colour) or not 0 <= colour <= 0xFFFFFF):
            tree.add(ep + ("color",), "NUMBER_TYPE_MAX", "int value should be <= 16777215 and >= 0.")
        fields = embed.get("fields") or []
        _list_max(tree, ep + ("fields",), fields, EMBED_FIELDS_MAX)
        for j, field in enumerate(fields):
            fp = ep + ("fields", j)
            for key, limit in (("name", EMBED_FIELD_NAME_MAX), ("value", EMBED_FIELD_VALUE_MAX)):
                val = field.get(key)
                if val is None or val == "":
                    tree.add(fp + (key,), "BASE_TYPE_REQUIRED", "This field is required")
                else:
                    _max_len(tree, fp + (key,), val, limit)
        _max_len(tree, ep + ("footer", "text"), (embed.get("footer") or {}).get("text"), EMBED_FOOTER_MAX)
        _max_len(tree, ep + ("author", "name"), (embed.get("author") or {}).get("name"), EMBED_AUTHOR_MAX)
        total += embed_text_length(embed)
    if total > EMBED_TOTAL_MAX:
        tree.add(path, "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def _validate_button(tree: ErrorTree, path: Path, c: Dict[str, Any]) -> None:
    style = c.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        tree.add(path + ("style",), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6).")
        return
    if "label" in c and c["label"] is not None:
        _max_len(tree, path + ("label",), c["label"], BUTTON_LABEL_MAX)
    if style == 5:
        if not c.get("url"):
            tree.add(path + ("url",), "BASE_TYPE_REQUIRED", "This field is required")
        if c.get("custom_id"):
            tree.add(
                path + ("custom_id",),
                "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE",
                "A custom id and url cannot both be specified",
            )
    elif style == 6:
        if not c.get("sku_id"):
            tree.add(path + ("sku_id",), "BASE_TYPE_REQUIRED", "This field is required")
    else:
        if c.get("custom_id") is None:
            tree.add(path + ("custom_id",), "BASE_TYPE_REQUIRED", "This field is required")
        else:
            _bad_len(tree, path + ("custom_id",), c["custom_id"], 1, CUSTOM_ID_MAX)
    if style != 6 and not c.get("label") and not c.get("emoji"):
        tree.add(path, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or emoji must be specified")


def _validate_select(tree: ErrorTree, path: Path, c: Dict[str, Any]) -> None:
    if c.get("custom_id") is None:
        tree.add(path + ("custom_id",), "BASE_TYPE_REQUIRED", "This field is required")
    else:
        _bad_len(tree, path + ("custom_id",), c["custom_id"], 1, CUSTOM_ID_MAX)
    _max_len(tree, path + ("placeholder",), c.get("placeholder"), SELECT_PLACEHOLDER_MAX)
    lo, hi = c.get("min_values", 1), c.get("max_values", 1)
    if lo is not None and (not _is_int(lo) or not 0 <= lo <= 25):
        tree.add(path + ("min_values",), "NUMBER_TYPE_MAX", "int value should be <= 25 and >= 0.")
    if hi is not None and (not _is_int(hi) or not 1 <= hi <= 25):
        tree.add(path + ("max_values",), "NUMBER_TYPE_MAX", "int value should be <= 25 and >= 1.")
    if c.get("type") == 3:
        options = c.get("options")
        if not isinstance(options, list) or not 1 <= len(options) <= SELECT_OPTIONS_MAX:
            tree.add(
                path + ("options",), "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {SELECT_OPTIONS_MAX} in length."
            )
            options = options if isinstance(options, list) else []
        values = set()
        for k, opt in enumerate(options):
            op = path + ("options", k)
            _bad_len(tree, op + ("label",), opt.get("label"), 1, SELECT_OPTION_TEXT_MAX)
            _bad_len(tree, op + ("value",), opt.get("value"), 1, SELECT_OPTION_TEXT_MAX)
            _max_len(tree, op + ("description",), opt.get("description"), SELECT_OPTION_TEXT_MAX)
            if opt.get("value") in values:
                tree.add(
                    op + ("value",),
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Select component option values cannot be duplicated",
                )
            values.add(opt.get("value"))
        if _is_int(hi) and options and hi > len(options):
            tree.add(
                path + ("max_values",),
                "SELECT_COMPONENT_MAX_VALUES_EXCEEDS_OPTIONS",
                "max_values must be less than or equal to the number of options",
            )


SELECT_TYPES = (3, 5, 6, 7, 8)


def _walk_custom_ids(tree: ErrorTree, path: Path, comp: Dict[str, Any], seen: Dict[str, Path]) -> None:
    cid = comp.get("custom_id")
    if isinstance(cid, str) and comp.get("type") in (2,) + SELECT_TYPES + (4,):
        if cid in seen:
            tree.add(
                path + ("custom_id",), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"
            )
        else:
            seen[cid] = path


def _validate_action_row(tree: ErrorTree, path: Path, row: Dict[str, Any], seen: Dict[str, Path]) -> None:
    children = row.get("components")
    if not isinstance(children, list) or not 1 <= len(children) <= ROW_WIDTH:
        tree.add(path + ("components",), "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {ROW_WIDTH} in length.")
        children = children if isinstance(children, list) else []
    has_select = any(isinstance(c, dict) and c.get("type") in SELECT_TYPES for c in children)
    if has_select and len(children) > 1:
        tree.add(
            path + ("components",),
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
            "The specified component exceeds the maximum width",
        )
    for j, c in enumerate(children):
        cp = path + ("components", j)
        if not isinstance(c, dict):
            tree.add(cp, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        ctype = c.get("type")
        if ctype == 2:
            _validate_button(tree, cp, c)
        elif ctype in SELECT_TYPES:
            _validate_select(tree, cp, c)
        elif ctype == 4:
            pass  # text inputs: only valid in modals, checked there
        else:
            tree.add(
                cp + ("type",),
                "UNION_TYPE_CHOICES",
                f'Value of field "type" must be one of (2, 3, 5, 6, 7, 8) (got {ctype!r}).',
            )
        _walk_custom_ids(tree, cp, c, seen)


def validate_components(tree: ErrorTree, prefix: Path, components: Any, *, v2: bool = False) -> None:
    path = prefix + ("components",)
    if components is None:
        return
    if not isinstance(components, list):
        tree.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    seen: Dict[str, Path] = {}
    if not v2:
        _list_max(tree, path, components, ACTION_ROWS_MAX)
        for i, row in enumerate(components):
            rp = path + (i,)
            if not isinstance(row, dict) or row.get("type") != 1:
                got = row.get("type") if isinstance(row, dict) else row
                tree.add(
                    rp + ("type",), "UNION_TYPE_CHOICES", f'Value of field "type" must be one of (1,) (got {got!r}).'
                )
                continue
            _validate_action_row(tree, rp, row, seen)
        return

    # Components V2: arbitrary layout, at most 40 components in total, text displays <= 4000 chars.
    count = 0
    text_total = 0

    def walk(comp: Any, cpath: Path) -> None:
        nonlocal count, text_total
        if not isinstance(comp, dict):
            tree.add(cpath, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            return
        count += 1
        ctype = comp.get("type")
        if ctype == 1:
            _validate_action_row(tree, cpath, comp, seen)
            count += len(comp.get("components") or [])
            return
        if ctype == 10:  # text display
            text_total += len(comp.get("content") or "")
        if ctype == 2:
            _validate_button(tree, cpath, comp)
            _walk_custom_ids(tree, cpath, comp, seen)
        for key in ("components",):
            for j, child in enumerate(comp.get(key) or []):
                walk(child, cpath + (key, j))
        if isinstance(comp.get("accessory"), dict):
            walk(comp["accessory"], cpath + ("accessory",))

    for i, comp in enumerate(components):
        walk(comp, path + (i,))
    if count > V2_COMPONENTS_MAX:
        tree.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {V2_COMPONENTS_MAX} or fewer in length.")
    if text_total > V2_TEXT_TOTAL_MAX:
        tree.add(
            path,
            "COMPONENT_TEXT_DISPLAY_MAX_LENGTH",
            f"Total text display content must be {V2_TEXT_TOTAL_MAX} or fewer characters.",
        )


def validate_message_body(tree: ErrorTree, prefix: Path, body: Dict[str, Any], *, flags: Optional[int] = None) -> None:
    """Content/embeds/components/attachments limits shared by every endpoint that sends a message."""
    content = body.get("content")
    if content is not None:
        if not isinstance(content, str):
            tree.add(prefix + ("content",), "BASE_TYPE_STRING", "Must be a string.")
        else:
            _max_len(tree, prefix + ("content",), content, CONTENT_MAX)
    validate_embeds(tree, prefix, body.get("embeds"))
    if flags is None:
        flags = body.get("flags") or 0
    v2 = bool(_is_int(flags) and flags & FLAG_COMPONENTS_V2)
    validate_components(tree, prefix, body.get("components"), v2=v2)
    if v2:
        if body.get("content"):
            tree.add(
                prefix + ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
        if body.get("embeds"):
            tree.add(
                prefix + ("embeds",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
    attachments = body.get("attachments")
    if isinstance(attachments, list):
        _list_max(tree, prefix + ("attachments",), attachments, FILES_MAX)


def validate_file_count(tree: ErrorTree, prefix: Path, n_files: int) -> None:
    if n_files > FILES_MAX:
        tree.add(prefix + ("attachments",), "BASE_TYPE_MAX_LENGTH", f"Must be {FILES_MAX} or fewer in length.")


# ============================================================================================
# Interaction responses
# ============================================================================================


def validate_autocomplete(tree: ErrorTree, data: Any, option_type: Optional[int]) -> None:
    path: Path = ("data", "choices")
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        tree.add(path, "BASE_TYPE_REQUIRED", "This field is required")
        return
    choices = data["choices"]
    _list_max(tree, path, choices, AUTOCOMPLETE_CHOICES_MAX)
    for i, ch in enumerate(choices):
        _validate_choice(tree, path + (i,), ch, option_type)


def _validate_choice(tree: ErrorTree, path: Path, ch: Any, option_type: Optional[int]) -> None:
    if not isinstance(ch, dict):
        tree.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    _bad_len(tree, path + ("name",), ch.get("name"), 1, CHOICE_NAME_MAX)
    value = ch.get("value")
    if option_type == OPT_STRING or (option_type is None and isinstance(value, str)):
        if not isinstance(value, str):
            tree.add(path + ("value",), "BASE_TYPE_STRING", "Must be a string.")
        else:
            _max_len(tree, path + ("value",), value, CHOICE_STRING_VALUE_MAX)
    elif option_type == OPT_INTEGER:
        if not _is_int(value):
            tree.add(path + ("value",), "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.')
    elif option_type == OPT_NUMBER:
        if not _is_number(value):
            tree.add(path + ("value",), "NUMBER_TYPE_COERCE", f'Value "{value}" is not a number.')
    elif value is None:
        tree.add(path + ("value",), "BASE_TYPE_REQUIRED", "This field is required")


def validate_modal(tree: ErrorTree, data: Any) -> None:
    if not isinstance(data, dict):
        tree.add(("data",), "BASE_TYPE_REQUIRED", "This field is required")
        return
    if data.get("custom_id") is None:
        tree.add(("data", "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
    else:
        _bad_len(tree, ("data", "custom_id"), data["custom_id"], 1, CUSTOM_ID_MAX)
    _bad_len(tree, ("data", "title"), data.get("title"), 1, MODAL_TITLE_MAX)
    comps = data.get("components")
    if not isinstance(comps, list) or not 1 <= len(comps) <= 5:
        tree.add(("data", "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")


# ============================================================================================
# Application commands
# ============================================================================================


def check_locale(locale: str) -> str:
    """``locale`` if Discord has it (:data:`LOCALES`), for the emulator's own helpers; a typo in a test fails."""
    if locale not in LOCALES:
        raise ValueError(f"{locale!r} is not a Discord locale (one of {', '.join(LOCALES)})")
    return locale


def _validate_name(tree: ErrorTree, path: Path, name: Any, *, chat_input: bool) -> None:
    if chat_input:
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            tree.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    else:
        _bad_len(tree, path, name, 1, 32)


def _validate_localizations(
    tree: ErrorTree, path: Path, value: Any, check: Callable[[ErrorTree, Path, Any], None]
) -> None:
    """A ``*_localizations`` map (absent or null allowed): every key a Discord locale, every value passing ``check``
    (the rule of the field it localises)."""
    if value is None:
        return
    if not isinstance(value, dict):
        tree.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    for locale, text in value.items():
        if locale not in LOCALES:
            tree.add(path + (locale,), "BASE_TYPE_CHOICES", f"Value must be one of {LOCALES}.")
        else:
            check(tree, path + (locale,), text)


def _validate_texts(
    tree: ErrorTree, path: Path, item: Dict[str, Any], *, chat_input: bool = True, choice: bool = False
) -> None:
    """The localisations of a command's, option's or choice's name and description."""
    if choice:
        _validate_localizations(
            tree,
            path + ("name_localizations",),
            item.get("name_localizations"),
            lambda t, p, v: _bad_len(t, p, v, 1, CHOICE_NAME_MAX),
        )
        return
    _validate_localizations(
        tree,
        path + ("name_localizations",),
        item.get("name_localizations"),
        lambda t, p, v: _validate_name(t, p, v, chat_input=chat_input),
    )
    if chat_input:
        _validate_localizations(
            tree,
            path + ("description_localizations",),
            item.get("description_localizations"),
            lambda t, p, v: _bad_len(t, p, v, 1, COMMAND_DESCRIPTION_MAX),
        )


def shown_name(item: Dict[str, Any], locale: Optional[str]) -> Any:
    """The name a client of ``locale`` shows for a command, option or choice: its localisation, else its name."""
    return (item.get("name_localizations") or {}).get(locale) or item.get("name")


def _unique_per_locale(
    tree: ErrorTree, path: Path, items: Any, code: str, message: str, *, by_type: bool = False
) -> None:
    """Names at one level must differ in every locale too, each as that locale's clients show it (``by_type``:
    top-level commands, unique among those of the same type). The error is at the localisation that clashes."""
    items = list(enumerate(items)) if isinstance(items, list) else []
    items = [(i, item) for i, item in items if isinstance(item, dict)]
    locales = {loc for _i, item in items for loc in (item.get("name_localizations") or {}) if loc in LOCALES}
    for locale in sorted(locales):
        seen: Dict[Any, int] = {}
        for i, item in items:
            key = (item.get("type", 1) if by_type else None, shown_name(item, locale))
            if key in seen:
                at = i if locale in (item.get("name_localizations") or {}) else seen[key]
                tree.add(path + (at, "name_localizations", locale), code, f"{message} ({locale}: {key[1]!r})")
            seen.setdefault(key, i)


def _validate_options(tree: ErrorTree, path: Path, options: Any, *, depth: int) -> None:
    """depth 0: options of a top-level command; 1: options of a subcommand group (subcommands
    only); 2: options of a subcommand (value options only)."""
    if options is None:
        return
    if not isinstance(options, list):
        tree.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    _list_max(tree, path, options, COMMAND_OPTIONS_MAX)
    names = set()
    seen_optional = False
    kinds = set()
    for i, opt in enumerate(options):
        op = path + (i,)
        if not isinstance(opt, dict):
            tree.add(op, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        otype = opt.get("type")
        if otype not in OPTION_TYPES:
            tree.add(op + ("type",), "BASE_TYPE_CHOICES", f"Value must be one of {sorted(OPTION_TYPES)}.")
            continue
        _validate_name(tree, op + ("name",), opt.get("name"), chat_input=True)
        _bad_len(tree, op + ("description",), opt.get("description"), 1, COMMAND_DESCRIPTION_MAX)
        _validate_texts(tree, op, opt)
        if opt.get("name") in names:
            tree.add(op + ("name",), "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique")
        names.add(opt.get("name"))
        is_sub = otype in (OPT_SUB_COMMAND, OPT_SUB_COMMAND_GROUP)
        kinds.add("sub" if is_sub else "value")
        if is_sub:
            # Nesting: groups only at the top level and only containing subcommands.
            if otype == OPT_SUB_COMMAND_GROUP and depth != 0:
                tree.add(
                    op + ("type",),
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Sub-command groups can only be nested at the top level of a command",
                )
            elif otype == OPT_SUB_COMMAND and depth == 2:
                tree.add(
                    op + ("type",),
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Sub-commands cannot be nested inside sub-commands",
                )
            if opt.get("required"):
                tree.add(
                    op + ("required",),
                    "APPLICATION_COMMAND_OPTION_REQUIRED_INVALID",
                    "Sub-commands and groups cannot be required",
                )
            child_depth = 1 if otype == OPT_SUB_COMMAND_GROUP else 2
            if otype == OPT_SUB_COMMAND_GROUP:
                subs = opt.get("options") or []
                if not subs:
                    tree.add(
                        op + ("options",),
                        "BASE_TYPE_BAD_LENGTH",
                        f"Must be between 1 and {COMMAND_OPTIONS_MAX} in length.",
                    )
                for k, s in enumerate(subs):
                    if isinstance(s, dict) and s.get("type") != OPT_SUB_COMMAND:
                        tree.add(
                            op + ("options", k, "type"),
                            "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                            "Sub-command groups can only contain sub-commands",
                        )
            _validate_options(tree, op + ("options",), opt.get("options"), depth=child_depth)
            continue

        required = bool(opt.get("required", False))
        if required and seen_optional:
            tree.add(
                op + ("required",),
                "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                "Required options must be placed before non-required options",
            )
        if not required:
            seen_optional = True
        if opt.get("options"):
            tree.add(
                op + ("options",),
                "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                "Only sub-commands and groups can have options",
            )
        choices = opt.get("choices")
        if choices:
            if otype not in (OPT_STRING, OPT_INTEGER, OPT_NUMBER):
                tree.add(
                    op + ("choices",),
                    "APPLICATION_COMMAND_OPTION_CHOICES_INVALID",
                    "Choices are only allowed on string, integer and number options",
                )
            _list_max(tree, op + ("choices",), choices, COMMAND_CHOICES_MAX)
            for k, ch in enumerate(choices):
                _validate_choice(tree, op + ("choices", k), ch, otype)
                if isinstance(ch, dict):
                    _validate_texts(tree, op + ("choices", k), ch, choice=True)
            if opt.get("autocomplete"):
                tree.add(
                    op + ("autocomplete",),
                    "APPLICATION_COMMAND_AUTOCOMPLETE_INCOMPATIBLE_WITH_CHOICES",
                    "Autocomplete cannot be enabled on an option that has choices",
                )
        if opt.get("autocomplete") and otype not in (OPT_STRING, OPT_INTEGER, OPT_NUMBER):
            tree.add(
                op + ("autocomplete",),
                "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_INVALID",
                "Autocomplete is only allowed on string, integer and number options",
            )
        for key in ("min_length", "max_length"):
            v = opt.get(key)
            if v is not None and (otype != OPT_STRING or not _is_int(v) or not 0 <= v <= 6000):
                tree.add(op + (key,), "NUMBER_TYPE_MAX", "int value should be <= 6000 and >= 0.")
        for key in ("min_value", "max_value"):
            v = opt.get(key)
            if v is not None and (otype not in (OPT_INTEGER, OPT_NUMBER) or not _is_number(v)):
                tree.add(
                    op + (key,),
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "min_value/max_value are only allowed on integer and number options",
                )
    _unique_per_locale(
        tree, path, options, "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique"
    )
    if kinds == {"sub", "value"}:
        tree.add(
            path,
            "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
            "Sub-command and sub-command group option types are mutually exclusive to all other types",
        )


def command_text_length(cmd: Dict[str, Any], locale: Optional[str] = None) -> int:
    """Discord: combined length of name, description and value properties for a command, its
    options (including subcommands and groups) and choices must be <= 4000 — in each locale (its
    localised names and descriptions where it has them)."""

    def name(item: Dict[str, Any]) -> str:
        return str(shown_name(item, locale) or "")

    def description(item: Dict[str, Any]) -> str:
        return str((item.get("description_localizations") or {}).get(locale) or item.get("description") or "")

    def walk(opts: Any) -> int:
        n = 0
        for o in opts or []:
            if not isinstance(o, dict):
                continue
            n += len(name(o)) + len(description(o))
            for ch in o.get("choices") or []:
                if isinstance(ch, dict):
                    n += len(name(ch)) + len(str(ch.get("value") or ""))
            n += walk(o.get("options"))
        return n

    return len(name(cmd)) + len(description(cmd)) + walk(cmd.get("options"))


def validate_command(tree: ErrorTree, path: Path, cmd: Any) -> None:
    if not isinstance(cmd, dict):
        tree.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    ctype = cmd.get("type", 1)
    if ctype not in (1, 2, 3, 4):
        tree.add(path + ("type",), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4).")
        return
    chat_input = ctype == 1
    _validate_name(tree, path + ("name",), cmd.get("name"), chat_input=chat_input)
    _validate_texts(tree, path, cmd, chat_input=chat_input)
    if chat_input:
        _bad_len(tree, path + ("description",), cmd.get("description"), 1, COMMAND_DESCRIPTION_MAX)
        _validate_options(tree, path + ("options",), cmd.get("options"), depth=0)
    else:
        if cmd.get("description"):
            tree.add(
                path + ("description",),
                "APPLICATION_COMMAND_DESCRIPTION_INVALID",
                "Description must be empty for user and message commands",
            )
        if cmd.get("options"):
            tree.add(
                path + ("options",),
                "APPLICATION_COMMAND_OPTIONS_INVALID",
                "User and message commands cannot have options",
            )
    dmp = cmd.get("default_member_permissions")
    if dmp is not None:
        try:
            int(dmp)
        except (TypeError, ValueError):
            tree.add(path + ("default_member_permissions",), "NUMBER_TYPE_COERCE", f'Value "{dmp}" is not snowflake.')
    if max(command_text_length(cmd, locale) for locale in (None, *LOCALES)) > COMMAND_TOTAL_CHARS_MAX:
        tree.add(path, "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({COMMAND_TOTAL_CHARS_MAX})")


def validate_command_list(tree: ErrorTree, commands: Any) -> None:
    if not isinstance(commands, list):
        tree.add((), "BASE_TYPE_ARRAY", "Must be an array.")
        return
    counts = {1: 0, 2: 0, 3: 0, 4: 0}
    seen = {}
    for i, cmd in enumerate(commands):
        validate_command(tree, (i,), cmd)
        if isinstance(cmd, dict):
            ctype = cmd.get("type", 1)
            if ctype in counts:
                counts[ctype] += 1
            key = (ctype, cmd.get("name"))
            if key in seen:
                tree.add(
                    (i, "name"),
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique (duplicate: {cmd.get('name')!r})",
                )
            seen[key] = i
    _unique_per_locale(
        tree,
        (),
        commands,
        "APPLICATION_COMMANDS_DUPLICATE_NAME",
        "Application command names must be unique",
        by_type=True,
    )
    for ctype, limit, label in (
        (1, CHAT_INPUT_COMMANDS_MAX, "chat input"),
        (2, USER_COMMANDS_MAX, "user"),
        (3, MESSAGE_COMMANDS_MAX, "message"),
    ):
        if counts[ctype] > limit:
            tree.add((), "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length. (too many {label} commands)")


def option_by_name(options: Sequence[Dict[str, Any]], name: str) -> Optional[Dict[str, Any]]:
    for o in options or []:
        if o.get("name") == name:
            return o
    return None


def flatten_buttons(components: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []

    def walk(c: Any) -> None:
        if not isinstance(c, dict):
            return
        if c.get("type") == 2:
            out.append(c)
        for child in c.get("components") or []:
            walk(child)
        if isinstance(c.get("accessory"), dict):
            walk(c["accessory"])

    for comp in components or []:
        walk(comp)
    return out


def flatten_components(components: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []

    def walk(c: Any) -> None:
        if not isinstance(c, dict):
            return
        out.append(c)
        for child in c.get("components") or []:
            walk(child)
        if isinstance(c.get("accessory"), dict):
            walk(c["accessory"])

    for comp in components or []:
        walk(comp)
    return out
