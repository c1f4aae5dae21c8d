# moved to engine.movetext; removed once bot imports it
from engine.movetext import ParsedRecord, iso, parse_record, record_text  # noqa: F401
