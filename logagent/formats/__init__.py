"""Log formats: parsers, detection, route normalization and batch extraction (PURE)."""

from logagent.formats.base import PATH, STATUS, Format, RegexFormat
from logagent.formats.detect import FORMAT_NAMES, Detection, build_format, detect
from logagent.formats.extract import Extracted, extract
from logagent.formats.routes import DEFAULT_RULES, RouteRule, normalize_paths

__all__ = [
    "DEFAULT_RULES",
    "FORMAT_NAMES",
    "PATH",
    "STATUS",
    "Detection",
    "Extracted",
    "Format",
    "RegexFormat",
    "RouteRule",
    "build_format",
    "detect",
    "extract",
    "normalize_paths",
]
